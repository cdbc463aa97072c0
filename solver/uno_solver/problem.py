"""The placement problem as arrays, compiled from a Graph, and the evaluation of a placement.

Locations are numbered 0 = host, 1..k = the sNICs in graph order. Every solver (reference ILP,
fast, brute force) works on a `Problem`; all of them report through `evaluate`.

A placement `loc` (one location per node) costs

    sum_i loc_cost[i, loc_i] + sum_e edge_cost[e] * (number of PCIe links edge e crosses)

and is feasible when it respects `allowed`, the PCIe load of every link s is at most
`pcie_limit[s]` and the sNIC usage is at most `capacity`. Edge e crosses link s when exactly one
of its ends is on sNIC s, so traffic between two sNICs crosses both links.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .graph import Graph, Node

# Slack allowed on a limit (Gbps or resource units): sums of floats differ with their order, and
# ILP solvers accept rows violated by up to about 1e-7 of their scale.
FEAS_TOL = 1e-6


@dataclass(frozen=True, eq=False)
class Problem:
    """A placement problem over N nodes, k sNICs and R resources (shapes below, never mutated).

    allowed (N, k+1) bool: where each node may run; every row has at least one True.
    host_need (N, R), snic_need (N, k, R): resource needs of a node on the host / on sNIC s.
    loc_cost (N, k+1): objective cost of a node at each location (weighted host needs plus the
        migration cost away from its current location).
    edge_u, edge_v (E,): node pairs with u < v, each pair once (both directions merged);
    edge_gbps (E,): traffic between them in both directions; edge_cost (E,): objective cost per
        PCIe link the pair's traffic crosses.
    pcie_limit (k,), capacity (k, R): the limits T and D of each sNIC.
    current (N,): current location, or -1.
    """

    node_ids: tuple[str, ...]
    locations: tuple[str, ...]
    resources: tuple[str, ...]
    allowed: np.ndarray
    host_need: np.ndarray
    snic_need: np.ndarray
    loc_cost: np.ndarray
    edge_u: np.ndarray
    edge_v: np.ndarray
    edge_gbps: np.ndarray
    edge_cost: np.ndarray
    pcie_limit: np.ndarray
    capacity: np.ndarray
    current: np.ndarray

    @property
    def n(self) -> int:
        return len(self.node_ids)

    @property
    def k(self) -> int:
        return len(self.locations) - 1


@dataclass(frozen=True, eq=False)
class Evaluation:
    """Usage and cost of one placement: host (R,), snic (k, R), pcie (k,) Gbps, objective."""

    host: np.ndarray
    snic: np.ndarray
    pcie: np.ndarray
    objective: float

    def feasible(self, problem: Problem) -> bool:
        return bool(np.all(self.pcie <= problem.pcie_limit + FEAS_TOL)
                    and np.all(self.snic <= problem.capacity + FEAS_TOL))

    def violations(self, problem: Problem) -> list[str]:
        """One line per exceeded limit, naming the sNIC and the limit."""
        lines = []
        for s, snic in enumerate(problem.locations[1:]):
            if self.pcie[s] > problem.pcie_limit[s] + FEAS_TOL:
                lines.append(f"{snic}.pcie_gbps: {self.pcie[s]:g} > {problem.pcie_limit[s]:g}")
            for r, res in enumerate(problem.resources):
                if self.snic[s, r] > problem.capacity[s, r] + FEAS_TOL:
                    lines.append(f"{snic}.capacity.{res}: {self.snic[s, r]:g} > {problem.capacity[s, r]:g}")
        return lines


def compile_graph(graph: Graph) -> Problem:
    """Turn a valid graph into arrays: needs from fixed + per-Gbps profiles, pins, merged edges."""
    nodes = graph.nodes
    index = {n.id: i for i, n in enumerate(nodes)}
    resources = graph.resources
    locations = graph.locations
    k = len(graph.snics)

    traffic_in = np.zeros(len(nodes))
    for e in graph.edges:
        traffic_in[index[e.dst]] += e.gbps
    traffic = np.array([traffic_in[i] if n.gbps is None else n.gbps for i, n in enumerate(nodes)])

    host_need = np.zeros((len(nodes), len(resources)))
    snic_need = np.zeros((len(nodes), k, len(resources)))
    allowed = np.ones((len(nodes), k + 1), dtype=bool)
    for i, node in enumerate(nodes):
        host_need[i] = _need(node.needs.host, node.per_gbps.host, traffic[i], resources)
        offers = [node.accel is not None and node.accel in s.accel for s in graph.snics]
        for s in range(k):
            snic_need[i, s] = _snic_need(node, offers[s], traffic[i], resources)
        allowed[i] = _allowed(node, locations, offers, graph.pin_accelerated)

    weights = np.array([graph.objective.host_weights[r] for r in resources])
    loc_cost = np.zeros((len(nodes), k + 1))
    loc_cost[:, 0] = host_need @ weights
    current = np.array([-1 if n.current is None else locations.index(n.current) for n in nodes], dtype=np.int64)
    for i, node in enumerate(nodes):
        if current[i] >= 0:
            move = graph.objective.migration if node.migration_cost is None else node.migration_cost
            loc_cost[i] += move * (np.arange(k + 1) != current[i])

    merged: dict[tuple[int, int], list[float]] = {}
    for e in graph.edges:
        u, v = sorted((index[e.src], index[e.dst]))
        total = merged.setdefault((u, v), [0.0, 0.0])
        total[0] += e.gbps
        total[1] += 1.0
    pairs = np.array(sorted(merged), dtype=np.int64).reshape(-1, 2)
    sums = np.array([merged[tuple(p)] for p in pairs.tolist()]).reshape(-1, 2)
    edge_cost = graph.objective.pcie_gbps * sums[:, 0] + graph.objective.pcie_crossing * sums[:, 1]

    return Problem(
        node_ids=tuple(n.id for n in nodes),
        locations=locations,
        resources=resources,
        allowed=allowed,
        host_need=host_need,
        snic_need=snic_need,
        loc_cost=loc_cost,
        edge_u=pairs[:, 0].copy(),
        edge_v=pairs[:, 1].copy(),
        edge_gbps=sums[:, 0].copy(),
        edge_cost=edge_cost,
        pcie_limit=np.array([s.pcie_gbps for s in graph.snics]),
        capacity=np.array([[s.capacity[r] for r in resources] for s in graph.snics]).reshape(k, len(resources)),
        current=current,
    )


def _need(fixed: Mapping[str, float], per_gbps: Mapping[str, float], traffic: float,
          resources: tuple[str, ...]) -> np.ndarray:
    return np.array([fixed.get(r, 0.0) + per_gbps.get(r, 0.0) * traffic for r in resources])


def _snic_need(node: Node, accelerated: bool, traffic: float, resources: tuple[str, ...]) -> np.ndarray:
    fixed, per_gbps = node.needs.snic, node.per_gbps.snic
    if accelerated:
        fixed = fixed if node.needs.snic_accel is None else node.needs.snic_accel
        per_gbps = per_gbps if node.per_gbps.snic_accel is None else node.per_gbps.snic_accel
    return _need(fixed, per_gbps, traffic, resources)


def _allowed(node: Node, locations: tuple[str, ...], offers: list[bool], pin_accelerated: bool) -> np.ndarray:
    if node.pin is not None:
        return np.array([loc == node.pin for loc in locations])
    if pin_accelerated and any(offers):
        return np.array([False] + offers)
    return np.ones(len(locations), dtype=bool)


def evaluate(problem: Problem, loc: np.ndarray) -> Evaluation:
    """Usage, PCIe load and objective of the placement `loc` (N,) of location indices."""
    loc = np.asarray(loc, dtype=np.int64)
    on_host = loc == 0
    host = problem.host_need[on_host].sum(axis=0)
    k = problem.k
    snic = np.zeros((k, len(problem.resources)))
    pcie = np.zeros(k)
    crossings = np.zeros(len(problem.edge_u))
    for s in range(k):
        here = loc == s + 1
        snic[s] = problem.snic_need[here, s].sum(axis=0)
        cross = here[problem.edge_u] != here[problem.edge_v]
        pcie[s] = problem.edge_gbps[cross].sum()
        crossings += cross
    objective = float(problem.loc_cost[np.arange(problem.n), loc].sum() + problem.edge_cost @ crossings)
    return Evaluation(host=host, snic=snic, pcie=pcie, objective=objective)

