"""Presolve: take the fixed (pinned) nodes out of the problem and split the rest into components.

Pinned nodes become constants: their needs and the traffic between two pinned nodes use up part
of the limits, and an edge between a free node and a pinned one becomes a per-location term of
the free node. What is left is a graph of free nodes whose connected components interact only
through the side constraints (one PCIe row per sNIC, one capacity row per sNIC and resource).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..problem import Problem


@dataclass(frozen=True, eq=False)
class Reduced:
    """The problem over F free nodes with m = k + k*R side rows (PCIe rows first, then capacity).

    free (F,): node index of each free node; fixed_loc (N,): location of a fixed node, -1 if free.
    unary_cost (F, L): cost of a free node at each location (inf where not allowed), including
        the edges to fixed nodes. unary_w (F, L, m): its use of each side row at each location.
    pair_u, pair_v (P,): free-node indices of edges between free nodes; pair_gbps, pair_cost.
    rhs (m,): what the side rows leave for the free nodes; const: cost of the fixed part.
    label (F,): component of each free node (the smallest free index in it).
    cross (L, L, k): cross[a, b, s] is 1 when an edge with ends at a and b crosses link s.
    """

    problem: Problem
    free: np.ndarray
    fixed_loc: np.ndarray
    unary_cost: np.ndarray
    unary_w: np.ndarray
    pair_u: np.ndarray
    pair_v: np.ndarray
    pair_gbps: np.ndarray
    pair_cost: np.ndarray
    rhs: np.ndarray
    const: float
    label: np.ndarray
    cross: np.ndarray

    @property
    def m(self) -> int:
        return len(self.rhs)

    def full_placement(self, free_loc: np.ndarray) -> np.ndarray:
        """Locations of all nodes given the locations of the free ones."""
        loc = self.fixed_loc.copy()
        loc[self.free] = free_loc
        return loc


def crossing_table(k: int) -> np.ndarray:
    """cross[a, b, s] = 1 when exactly one of locations a, b is sNIC s (location s + 1)."""
    on = np.arange(k + 1)[:, None] == np.arange(1, k + 1)[None, :]   # (L, k): location is sNIC s
    return (on[:, None, :] != on[None, :, :]).astype(float)


def side_rows(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """Right-hand sides of the side rows, and the (N, L, m) row use of each node's own needs."""
    k, r = problem.k, len(problem.resources)
    use = np.zeros((problem.n, k + 1, k + k * r))
    for s in range(k):
        use[:, s + 1, k + s * r: k + (s + 1) * r] = problem.snic_need[:, s, :]
    return np.concatenate([problem.pcie_limit, problem.capacity.ravel()]), use


def reduce(problem: Problem) -> Reduced:
    k = problem.k
    cross = crossing_table(k)
    rhs, own_use = side_rows(problem)
    is_free = problem.allowed.sum(axis=1) >= 2
    fixed_loc = np.where(is_free, -1, np.argmax(problem.allowed, axis=1))
    free = np.flatnonzero(is_free)
    local = np.full(problem.n, -1)
    local[free] = np.arange(len(free))

    unary_cost = np.where(problem.allowed[free], problem.loc_cost[free], np.inf)
    unary_w = own_use[free].copy()
    fixed = np.flatnonzero(~is_free)
    const = float(problem.loc_cost[fixed, fixed_loc[fixed]].sum())
    rhs = rhs - own_use[fixed, fixed_loc[fixed]].sum(axis=0)

    u, v = problem.edge_u, problem.edge_v
    gbps, cost = problem.edge_gbps, problem.edge_cost
    fu, fv = is_free[u], is_free[v]

    both_fixed = ~fu & ~fv
    c = cross[fixed_loc[u[both_fixed]], fixed_loc[v[both_fixed]]]          # (E', k)
    rhs[:k] -= gbps[both_fixed] @ c
    const += float(cost[both_fixed] @ c.sum(axis=1))

    for mine, other in ((u, v), (v, u)):
        half = is_free[mine] & ~is_free[other]
        c = cross[:, fixed_loc[other[half]]].transpose(1, 0, 2)              # (E', L, k)
        np.add.at(unary_w[:, :, :k], local[mine[half]], gbps[half, None, None] * c)
        np.add.at(unary_cost, local[mine[half]], cost[half, None] * c.sum(axis=2))

    inner = fu & fv
    pair_u, pair_v = local[u[inner]], local[v[inner]]
    return Reduced(
        problem=problem, free=free, fixed_loc=fixed_loc, unary_cost=unary_cost, unary_w=unary_w,
        pair_u=pair_u, pair_v=pair_v, pair_gbps=gbps[inner], pair_cost=cost[inner],
        rhs=rhs, const=const, label=components(len(free), pair_u, pair_v), cross=cross,
    )


def components(n: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Connected components of an undirected graph: label = smallest node index in the component.

    Min-label propagation along the edges with pointer jumping; a few vectorised rounds.
    """
    label = np.arange(n)
    while True:
        new = label.copy()
        np.minimum.at(new, u, label[v])
        np.minimum.at(new, v, label[u])
        while True:
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, label):
            return label
        label = new
