"""The two blocks of the reduced problem: small components as options, large ones as nodes.

A small component of c free nodes has at most (k+1)^c placements; enumerating them turns it into
a choice among options, each with its cost and its use of the side rows. The problem over small
components is then a multiple-choice knapsack (a Dantzig-Wolfe reformulation). Its LP bound is the
same as the node formulation's, since a component's cut polytope is integral; what changes is that
HiGHS branches on whole placements of a component and the heuristic moves a whole component at
once. Measured on the benchmark's chain graphs the two are close (options faster at 2,000 nodes,
slower at 5,000 where they triple the LP's columns). Components too large to enumerate keep one
variable per node and location (`Large`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .decompose import Reduced

# Components with more placements than this stay in the node formulation (`Large`).
MAX_OPTIONS = 256


@dataclass(frozen=True, eq=False)
class Options:
    """O options over C components: cost (O,), w (O, m) side-row use, comp (O,) in 0..C-1.

    `groups` holds, per component size, the (B, size) matrix of the components' free nodes and
    the (M, size) grid of their placements; option o places the nodes of row `row[o]` of group
    `group[o]` as row `grid_row[o]` of its grid. Options of one component are contiguous; every
    component has at least one option.
    """

    cost: np.ndarray
    w: np.ndarray
    comp: np.ndarray
    group: np.ndarray
    row: np.ndarray
    grid_row: np.ndarray
    groups: tuple[tuple[np.ndarray, np.ndarray], ...]

    @property
    def n_comp(self) -> int:
        return int(self.comp.max()) + 1 if len(self.comp) else 0

    def write(self, chosen: np.ndarray, free_loc: np.ndarray) -> None:
        """Write the locations of the chosen options (one per component) into `free_loc`."""
        for o in chosen:
            nodes, grid = self.groups[self.group[o]]
            free_loc[nodes[self.row[o]]] = grid[self.grid_row[o]]

    def locate(self, free_loc: np.ndarray, n_loc: int) -> np.ndarray:
        """The option of each component that places its nodes as `free_loc` does (an allowed
        placement), -1 for a component without one: the inverse of `write`."""
        codes = [(free_loc[nodes] * n_loc ** np.arange(nodes.shape[1])[None, :]).sum(axis=1)
                 for nodes, _ in self.groups]
        offset = np.cumsum([0] + [len(c) for c in codes])
        flat = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)
        match = flat[offset[self.group] + self.row] == self.grid_row
        chosen = np.full(self.n_comp, -1, dtype=np.int64)
        chosen[self.comp[match]] = np.flatnonzero(match)
        return chosen


@dataclass(frozen=True, eq=False)
class Large:
    """P nodes of the large components, with their E edges (ends as indices into `nodes`).

    nodes (P,): free-node indices; unary_cost (P, L), unary_w (P, L, m) as in `Reduced`;
    eu, ev (E,), gbps (E,), cost (E,): the edges among them.
    """

    nodes: np.ndarray
    unary_cost: np.ndarray
    unary_w: np.ndarray
    eu: np.ndarray
    ev: np.ndarray
    gbps: np.ndarray
    cost: np.ndarray


def split(red: Reduced) -> tuple[Options, Large]:
    """Enumerate the small components; keep the others as nodes."""
    size = np.bincount(red.label, minlength=len(red.label))[red.label]
    n_loc = red.unary_cost.shape[1]
    small = size * np.log(n_loc) <= np.log(MAX_OPTIONS) + 1e-9
    nodes = np.flatnonzero(~small)
    index = np.full(len(red.label), -1)
    index[nodes] = np.arange(len(nodes))
    inner = ~small[red.pair_u]  # an edge lies inside one component: both ends large or both small
    large = Large(nodes, red.unary_cost[nodes], red.unary_w[nodes], index[red.pair_u[inner]],
                  index[red.pair_v[inner]], red.pair_gbps[inner], red.pair_cost[inner])
    return enumerate_options(red, small), large


def enumerate_options(red: Reduced, mask: np.ndarray) -> Options:
    """Options of every component of the free nodes in `mask` (whole components only)."""
    n_loc = red.unary_cost.shape[1]
    nodes_sorted = np.flatnonzero(mask)
    nodes_sorted = nodes_sorted[np.argsort(red.label[nodes_sorted], kind="stable")]
    labels = red.label[nodes_sorted]
    starts = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]]) if len(labels) else np.zeros(0, int)
    sizes = np.diff(np.r_[starts, len(labels)])
    in_mask_edge = mask[red.pair_u] & mask[red.pair_v]
    eu, ev = red.pair_u[in_mask_edge], red.pair_v[in_mask_edge]
    egbps, ecost = red.pair_gbps[in_mask_edge], red.pair_cost[in_mask_edge]
    position = np.zeros(len(red.label), dtype=np.int64)
    comp_of = np.full(len(red.label), -1)
    comp_of[nodes_sorted] = np.repeat(np.arange(len(starts)), sizes)
    k = red.cross.shape[2]

    parts = []
    groups = []
    for size in np.unique(sizes):
        comps = np.flatnonzero(sizes == size)
        block = nodes_sorted[starts[comps][:, None] + np.arange(size)]          # (B, size)
        position[block] = np.arange(size)
        grid = _grid(n_loc, int(size))                                          # (M, size)
        cost = np.zeros((len(comps), len(grid)))
        w = np.zeros((len(comps), len(grid), red.m))
        for j in range(size):
            cost += red.unary_cost[block[:, j][:, None], grid[None, :, j]]
            w += red.unary_w[block[:, j][:, None], grid[None, :, j]]
        rank = np.full(len(starts), -1)
        rank[comps] = np.arange(len(comps))
        here = rank[comp_of[eu]] >= 0
        b = rank[comp_of[eu[here]]]
        c = red.cross[grid[:, position[eu[here]]], grid[:, position[ev[here]]]]  # (M, E', k)
        np.add.at(w[:, :, :k], b, (egbps[here][None, :, None] * c).transpose(1, 0, 2))
        np.add.at(cost, b, (ecost[here][None, :] * c.sum(axis=2)).T)
        ok = np.isfinite(cost)
        rows, cols = np.nonzero(ok)
        parts.append((comps[rows], cost[rows, cols], w[rows, cols], np.full(len(rows), len(groups)), rows, cols))
        groups.append((block, grid))

    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return Options(np.zeros(0), np.zeros((0, red.m)), empty, empty, empty, empty, ())
    comp, cost, w, group, row, grid_row = (np.concatenate(p) for p in zip(*parts, strict=False))
    order = np.argsort(comp, kind="stable")
    return Options(cost[order], w[order], comp[order], group[order], row[order], grid_row[order], tuple(groups))


def _grid(n_loc: int, size: int) -> np.ndarray:
    """All n_loc**size assignments of `size` nodes, one per row."""
    return (np.arange(n_loc ** size)[:, None] // n_loc ** np.arange(size)[None, :]) % n_loc
