"""Synthetic placement graphs for the tests and the benchmark (seeded, deterministic).

- `chain_graph`: service-chain-like hosts: VMs whose traffic goes through chains of 1-4 NFs to a
  wire port (north-south) or to another VM (east-west); some NFs are shared by two chains.
- `random_graph`: sparse random graphs (1.5 edges per node) over the same NF catalogue.
- `fig16_graph`: the UNO paper's §5.3 experiment (9 VMs, 18 DPI NFs, D = 36 sNIC cores).
- `realistic_graph`: hosts shaped like data-center servers: tenants with chains of 1-5 NFs, NFs
  shared between tenants, log-normal rates, 1 or 2 sNICs, CPU and memory, some NFs pinned.
- `small_graph`: tiny random graphs exercising every feature, for brute-force cross-checks.
Needs come from per-Gbps profiles (`NF_TYPES`), as the NF agent would give them. The objective of
the chain and random graphs is the NFs' host CPU cores (memory only limits the sNIC); VMs are
given no needs, as they add the same constant to every placement.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .graph import SCHEMA_ID, Graph
from .problem import compile_graph, evaluate

# Per Gbps of processed traffic: host cores, sNIC cores (and on a crypto-accelerating sNIC);
# fixed memory (GB) on either side. DPI is the paper's profile: 5 host / 10 sNIC cores per 9 Gbps.
NF_TYPES: dict[str, dict[str, Any]] = {
    "fw": {"host": 0.05, "snic": 0.09, "mem": 0.5},
    "nat": {"host": 0.04, "snic": 0.07, "mem": 0.5},
    "lb": {"host": 0.10, "snic": 0.22, "mem": 1.0},
    "ids": {"host": 0.40, "snic": 0.85, "mem": 2.0},
    "dpi": {"host": 5 / 9, "snic": 10 / 9, "mem": 2.0},
    "ipsec": {"host": 0.50, "snic": 1.20, "snic_accel": 0.15, "mem": 1.0, "accel": "crypto"},
}

# Where T sits between the least and the most PCIe traffic of the two extreme placements
# (every NF on the host, every NF on the sNIC), and the share of the NFs' sNIC needs D covers.
TIGHT_T, LOOSE_T = 0.2, 0.8
D_SHARE = {"cpu": 0.5, "mem": 0.6}


def _nf_node(ident: str, kind: str) -> dict[str, Any]:
    profile = NF_TYPES[kind]
    node: dict[str, Any] = {
        "id": ident, "kind": "nf",
        "needs": {"host": {"mem": profile["mem"]}, "snic": {"mem": profile["mem"]}},
        "per_gbps": {"host": {"cpu": profile["host"]}, "snic": {"cpu": profile["snic"]}},
    }
    if "accel" in profile:
        node["accel"] = profile["accel"]
        node["per_gbps"]["snic_accel"] = {"cpu": profile["snic_accel"]}
    return node


def chain_graph(n: int, seed: int, tight: bool) -> Graph:
    """A service-chain-like host of exactly n nodes (n >= 2)."""
    rng = np.random.default_rng(seed)
    ports = [f"eth{p}" for p in range(max(1, n // 250))]
    nodes = [{"id": p, "kind": "port"} for p in ports]
    vms: list[str] = []
    nfs: list[str] = []
    rates: dict[tuple[str, str], float] = {}
    while len(nodes) < n:
        vm = f"vm{len(vms)}"
        nodes.append({"id": vm, "kind": "vm"})
        east_west = bool(vms) and rng.random() < 0.25
        dest = str(rng.choice(vms)) if east_west else str(rng.choice(ports))
        vms.append(vm)
        hops: list[str] = []
        for _ in range(min(int(rng.integers(1, 5)), n - len(nodes))):
            if nfs and rng.random() < 0.1:
                shared = str(rng.choice(nfs))
                if shared not in hops:
                    hops.append(shared)
                continue
            nf = f"nf{len(nfs)}"
            nodes.append(_nf_node(nf, str(rng.choice(list(NF_TYPES)))))
            nfs.append(nf)
            hops.append(nf)
        forward = float(rng.uniform(0.2, 4.0))
        backward = forward * float(rng.uniform(0.2, 1.0))
        path = [vm] + hops + [dest]
        for a, b in zip(path, path[1:], strict=False):
            rates[(a, b)] = rates.get((a, b), 0.0) + forward
            rates[(b, a)] = rates.get((b, a), 0.0) + backward
    return _with_limits(nodes, rates, tight)


def random_graph(n: int, seed: int, tight: bool) -> Graph:
    """A sparse random graph of n nodes: 10% VMs, 2% ports, the rest NFs; 1.5 n edges."""
    rng = np.random.default_rng(seed)
    n_ports, n_vms = max(1, n // 50), max(1, n // 10)
    nodes: list[dict[str, Any]] = [{"id": f"eth{p}", "kind": "port"} for p in range(n_ports)]
    nodes += [{"id": f"vm{v}", "kind": "vm"} for v in range(n_vms)]
    nodes += [_nf_node(f"nf{i}", str(rng.choice(list(NF_TYPES)))) for i in range(n - n_ports - n_vms)]
    m = int(1.5 * n)
    src, dst = rng.integers(n, size=m), rng.integers(n, size=m)
    rates: dict[tuple[str, str], float] = {}
    for a, b, gbps in zip(src, dst, rng.uniform(0.1, 3.0, size=m), strict=False):
        if a != b:
            key = (nodes[a]["id"], nodes[b]["id"])
            rates[key] = rates.get(key, 0.0) + float(gbps)
    return _with_limits(nodes, rates, tight)


def _with_limits(nodes: list[dict[str, Any]], rates: dict[tuple[str, str], float], tight: bool,
                 snics: tuple[str, ...] | list[str] = ("snic0",), grid: float | None = None) -> Graph:
    """The graph with, for every sNIC s, its PCIe limit between the load of the placement with every free
    node on the host and the one with every free node on s (TIGHT_T or LOOSE_T of the way; with `grid`, raised
    to half a grid step past a multiple of it), and its capacity: the needs of the nodes pinned to s and D_SHARE of
    the sNIC needs of the free nodes, shared out among the sNICs."""
    doc = {
        "schema": SCHEMA_ID, "resources": ["cpu", "mem"],
        "snics": [{"id": s, "pcie_gbps": 0.0, "capacity": {"cpu": 0.0, "mem": 0.0}, "accel": ["crypto"]}
                  for s in snics],
        "nodes": nodes,
        "edges": [{"src": a, "dst": b, "gbps": round(g, 6)} for (a, b), g in rates.items()],
        "objective": {"host_weights": {"cpu": 1.0, "mem": 0.0}},
    }
    problem = compile_graph(Graph.from_dict(doc))
    free = problem.allowed.all(axis=1)
    share = TIGHT_T if tight else LOOSE_T
    pinned = np.argmax(problem.allowed, axis=1)
    for s, snic in enumerate(doc["snics"]):
        loads = [float(evaluate(problem, np.where(free, side, pinned)).pcie[s]) for side in (0, s + 1)]
        lo, hi = min(loads), max(loads)
        limit = lo + share * (hi - lo)
        snic["pcie_gbps"] = round(limit, 6) if grid is None else round((np.ceil(limit / grid) + 0.5) * grid, 6)
        need = problem.snic_need[free, s].sum(axis=0)
        pinned_here = problem.snic_need[~free & problem.allowed[:, s + 1], s].sum(axis=0)
        snic["capacity"] = {r: round(float(pinned_here[i]) + D_SHARE[r] * float(need[i]) / len(snics), 6)
                            for i, r in enumerate(problem.resources)}
    return Graph.from_dict(doc)


# Realistic hosts: the log-normal of a chain's forward rate (Gbps; median 0.5, a few chains of 5-10),
# the share of a chain's hops that reuse a tenant-shared NF, and of NFs an operator pins.
REALISTIC_RATE = (np.log(0.5), 1.0)
REALISTIC_SHARED, REALISTIC_PINNED = 0.15, 0.05
REALISTIC_GRID = 0.001


def realistic_graph(n: int, seed: int, tight: bool) -> Graph:
    """A host of n nodes (n >= 4) shaped like a data-center server: tenants (one VM each, some with two)
    whose traffic runs through a chain of 1-5 catalogue NFs to a wire port or to another tenant's VM;
    some hops go through an NF shared by several tenants (a shared firewall or load balancer); log-normal
    rates; 1 or 2 sNICs (chosen by the seed), each with a wire port; CPU and memory limits on every sNIC;
    a few NFs pinned by the operator to the host or an sNIC. The PCIe and sNIC limits are set as in
    `chain_graph`, per sNIC."""
    rng = np.random.default_rng(seed)
    k = 1 + int(rng.random() < 0.5)
    snics = [f"snic{s}" for s in range(k)]
    nodes: list[dict[str, Any]] = [{"id": f"eth{s}", "kind": "port", "pin": snics[s]} for s in range(k)]
    shared: dict[str, list[str]] = {}  # NF type -> shared NFs of that type
    vms: list[str] = []
    nfs = 0
    rates: dict[tuple[str, str], float] = {}

    def add_nf(kind: str) -> str:
        nonlocal nfs
        node = _nf_node(f"nf{nfs}", kind)
        if rng.random() < REALISTIC_PINNED:
            node["pin"] = str(rng.choice(["host"] + snics))
        nodes.append(node)
        nfs += 1
        return node["id"]

    while len(nodes) < n:
        tenant_vms = [f"vm{len(vms) + i}" for i in range(1 + int(rng.random() < 0.2 and n - len(nodes) > 3))]
        nodes += [{"id": vm, "kind": "vm"} for vm in tenant_vms]
        vms += tenant_vms
        hops: list[str] = []
        for _ in range(min(int(rng.integers(1, 6)), n - len(nodes))):
            kind = str(rng.choice(list(NF_TYPES)))
            if shared.get(kind) and rng.random() < REALISTIC_SHARED:
                nf = str(rng.choice(shared[kind]))
                if nf in hops:
                    continue
            else:
                nf = add_nf(kind)
                if rng.random() < 0.2:
                    shared.setdefault(kind, []).append(nf)
            hops.append(nf)
        others = [v for v in vms if v not in tenant_vms]
        east_west = bool(others) and rng.random() < 0.3
        dest = str(rng.choice(others)) if east_west else f"eth{int(rng.integers(k))}"
        for vm in tenant_vms:
            forward = float(rng.lognormal(*REALISTIC_RATE))
            backward = forward * float(rng.uniform(0.1, 1.0))
            path = [vm] + hops + [dest]
            for a, b in zip(path, path[1:], strict=False):
                rates[(a, b)] = rates.get((a, b), 0.0) + forward
                rates[(b, a)] = rates.get((b, a), 0.0) + backward
    # Rates and PCIe limits on a grid, the limits half a step off it: no placement's load ties a limit,
    # where solvers with different feasibility tolerances could disagree.
    rates = {e: round(g, 3) or REALISTIC_GRID for e, g in rates.items()}
    return _with_limits(nodes[:n], rates, tight, snics, grid=REALISTIC_GRID)


# §5.3 stand-in for Fig. 15 (not in the paper's text): every VM v has a north-south DPI between it
# and the wire port and an east-west DPI on its traffic to the next VM of a ring. Offloading a
# north-south DPI costs no PCIe (the crossing only moves); offloading an east-west DPI makes its
# traffic cross PCIe twice. EW rates differ per VM so the optimum fills the sNIC step by step.
FIG16_NS_GBPS = (0.3, 0.2)                 # wire -> VM, VM -> wire, per VM
FIG16_EW_GBPS = (2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0)
FIG16_SNIC_CORES = 36.0


def fig16_graph(pcie_gbps: float) -> Graph:
    vms = len(FIG16_EW_GBPS)
    nodes: list[dict[str, Any]] = [{"id": "eth0", "kind": "port"}]
    edges: list[dict[str, Any]] = []
    down, up = FIG16_NS_GBPS
    for v in range(vms):
        vm, ns, ew = f"vm{v}", f"dpi-ns{v}", f"dpi-ew{v}"
        nodes += [{"id": vm, "kind": "vm"}, _dpi(ns), _dpi(ew)]
        edges += [_edge("eth0", ns, down), _edge(ns, vm, down), _edge(vm, ns, up), _edge(ns, "eth0", up),
                  _edge(vm, ew, FIG16_EW_GBPS[v]), _edge(ew, f"vm{(v + 1) % vms}", FIG16_EW_GBPS[v])]
    return Graph.from_dict({
        "schema": SCHEMA_ID, "resources": ["cpu"],
        "snics": [{"id": "snic0", "pcie_gbps": pcie_gbps, "capacity": {"cpu": FIG16_SNIC_CORES}}],
        "nodes": nodes, "edges": edges,
    })


def _dpi(ident: str) -> dict[str, Any]:
    return {"id": ident, "kind": "nf", "per_gbps": {"host": {"cpu": NF_TYPES["dpi"]["host"]},
                                                    "snic": {"cpu": NF_TYPES["dpi"]["snic"]}}}


def _edge(src: str, dst: str, gbps: float) -> dict[str, Any]:
    return {"src": src, "dst": dst, "gbps": gbps}


def small_graph(seed: int) -> Graph:
    """A random graph of 1-16 nodes using every feature: 1-3 resources, k = 1 or 2 sNICs, VMs,
    ports, operator pins, accelerators, fixed and per-Gbps needs, current placement with migration
    costs, secondary PCIe costs; limits drawn so that some instances are infeasible.
    At most 16 free nodes for k = 1 and 10 for k = 2, so brute force stays small.
    """
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 3))
    resources = ["cpu", "mem", "gpu"][: int(rng.integers(1, 4))]
    snics = [f"snic{s}" for s in range(k)]
    locations = ["host"] + snics
    n = int(rng.integers(1, 17))
    max_free = 16 if k == 1 else 10
    nodes = []
    n_free = 0
    for i in range(n):
        roll = rng.random()
        node: dict[str, Any] = {"id": f"n{i}"}
        if roll < 0.15:
            node["kind"] = "vm"
        elif roll < 0.25:
            node.update(kind="port", pin=str(rng.choice(snics)))
        else:
            node["kind"] = "nf"
            if rng.random() < 0.1 or n_free >= max_free:
                node["pin"] = str(rng.choice(locations))
            else:
                n_free += 1
            if rng.random() < 0.3:
                node["accel"] = "crypto"
        if node["kind"] != "port":
            node["needs"] = {"host": _amounts(rng, resources), "snic": _amounts(rng, resources)}
            if rng.random() < 0.5:
                node["per_gbps"] = {"host": _amounts(rng, resources, 0.5), "snic": _amounts(rng, resources, 0.8)}
            if "accel" in node and rng.random() < 0.7:
                node["needs"]["snic_accel"] = _amounts(rng, resources, 0.3)
            if rng.random() < 0.3:
                node["gbps"] = round(float(rng.uniform(0, 5)), 3)
        if node["kind"] == "nf" and rng.random() < 0.4:
            node["current"] = node.get("pin", str(rng.choice(locations)))
            if rng.random() < 0.5:
                node["migration_cost"] = round(float(rng.uniform(0, 3)), 3)
        nodes.append(node)
    edges = []
    for a in range(n):
        for b in range(n):
            if a != b and rng.random() < 2.0 / max(n, 1):
                edges.append(_edge(f"n{a}", f"n{b}", round(float(rng.uniform(0, 4)), 3)))
    snic_docs = [{"id": s, "pcie_gbps": round(float(rng.uniform(2, 25)), 3),
                  "capacity": _amounts(rng, resources, 12.0, every=True),
                  "accel": ["crypto"] if rng.random() < 0.6 else []} for s in snics]
    objective = {"host_weights": _amounts(rng, resources, 2.0),
                 "migration": round(float(rng.uniform(0, 2)), 3),
                 "pcie_gbps": round(float(rng.choice([0.0, 0.0, rng.uniform(0, 0.3)])), 3),
                 "pcie_crossing": round(float(rng.choice([0.0, 0.0, rng.uniform(0, 0.5)])), 3)}
    return Graph.from_dict({
        "schema": SCHEMA_ID, "resources": resources, "snics": snic_docs, "nodes": nodes, "edges": edges,
        "objective": objective, "options": {"pin_accelerated": bool(rng.random() < 0.2)},
    })


def _amounts(rng: np.random.Generator, resources: list[str], scale: float = 2.0,
             every: bool = False) -> dict[str, float]:
    return {r: round(float(rng.uniform(0, scale)), 3) for r in resources if every or rng.random() < 0.8}
