"""A bound on the menus' multiple-choice knapsack that keeps one side row exact.

The LP (and Lagrangian) bound of the knapsack prices every side row at its dual lam. With a tight
PCIe limit and a tight sNIC CPU capacity both bind, and many entries are then nearly tied in
Lagrangian value: the LP bound stays 0.05-0.8% below the optimum on 500-node chain graphs, and the
combinations under it are far too many to list. Keeping one row r exact and pricing only the others
is much stronger: the relaxation

    min  sum_c val(x_c)    over one entry x_c per component with  sum_c w_r(x_c) <= rhs_r,
    val = cost + lam_{-r} . w_{-r},  bound = that minimum - lam_{-r} . rhs_{-r} + const,

is a one-row multiple-choice knapsack, solved by dynamic programming over a grid of the row. Each
entry's row use is rounded *down* to the grid (after subtracting its component's least use, so that
nothing is negative), so every combination that meets the real row also fits the grid: the DP's
minimum is a valid lower bound, only weaker by the rounding.

A forward table (components 0..j) and a backward one (components j..C-1) also give, for every
entry, a lower bound on every combination that uses it. An entry whose bound is not below a target
cannot be in any combination cheaper than the target: the caller leaves it out of the MIP. On 500-node
chain graphs with a tight T this keeps 240-390 of 450-2,500 entries, and HiGHS needs 0.004-0.5 s
on them where it needed 0.1-1.5 s on the whole menus.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .lagrange import by_component

CELLS = 4096      # grid cells of the exact row
MAX_ROWS = 2      # rows tried as the exact one (those with the largest lam_r * rhs_r)
_ROUND = 1e-9     # absorbs division error: q <= use/cell + _ROUND, so that integer sums of fewer
                  # than 1e9 components still fit wherever the real uses fit


@dataclass(frozen=True)
class RowBounds:
    """`bound`: a lower bound on every combination (constant included, inf when none meets the
    rows); `entry` (E,): for each entry, a lower bound on every combination that uses it."""

    bound: float
    entry: np.ndarray


def row_bounds(comp: np.ndarray, cost: np.ndarray, w: np.ndarray, rhs: np.ndarray, lam: np.ndarray,
               const: float, n_comp: int, tol: float,
               stop: Callable[[], bool] = lambda: False) -> RowBounds | None:
    """Bounds for the knapsack: one of the entries (comp (E,), cost (E,), w (E, m)) per component
    0..n_comp-1 (each has at least one), w.sum <= rhs + tol per row, least cost. `lam` >= 0 (m,):
    prices of the rows not kept exact. The result is the best of the rows tried, entry by entry;
    None when `stop` (asked once per component and pass) said to stop first."""
    if not np.array_equal(np.unique(comp), np.arange(n_comp)):
        raise ValueError("every component needs an entry")
    groups = by_component(comp, np.arange(len(comp)))
    weight = lam * rhs
    rows = [int(r) for r in np.argsort(-weight, kind="stable")[:MAX_ROWS] if weight[r] > 0]
    best = RowBounds(-np.inf, np.full(len(cost), -np.inf))
    for r in rows:
        found = _one_row(groups, cost, w, rhs, lam, const, r, tol, stop)
        if found is None:
            return None
        best = RowBounds(max(best.bound, found.bound), np.maximum(best.entry, found.entry))
    return best


def _one_row(groups: list[np.ndarray], cost: np.ndarray, w: np.ndarray, rhs: np.ndarray, lam: np.ndarray,
             const: float, r: int, tol: float, stop: Callable[[], bool]) -> RowBounds | None:
    priced = np.ones(len(rhs), dtype=bool)
    priced[r] = False
    val = cost + w[:, priced] @ lam[priced]
    offset = const - float(lam[priced] @ rhs[priced])
    least = np.array([w[g, r].min() for g in groups])
    room = rhs[r] + tol - least.sum()
    if room < 0:                                   # not even the least use of every component fits
        return RowBounds(np.inf, np.full(len(cost), np.inf))
    cell = room / CELLS if room > 0 else 1.0
    q = np.empty(len(cost), dtype=np.int64)
    for j, g in enumerate(groups):
        q[g] = np.floor((w[g, r] - least[j]) / cell + _ROUND).astype(np.int64)
    # forward[j][c]: least val of components 0..j-1 using exactly c cells; backward[j][c]: of
    # components j.., using at most c cells (backward[0] gives the bound: no forward[C] needed)
    empty = np.full(CELLS + 1, np.inf)
    empty[0] = 0.0
    forward = [empty]
    for g in groups[:-1]:
        if stop():
            return None
        forward.append(_add(forward[-1], g, q, val))
    backward = [empty]
    for g in reversed(groups):
        if stop():
            return None
        backward.append(_add(backward[-1], g, q, val))
    backward = [np.minimum.accumulate(b) for b in reversed(backward)]
    entry = np.full(len(cost), np.inf)
    for j, g in enumerate(groups):
        if stop():
            return None
        for o in g:
            if q[o] <= CELLS:
                fit = CELLS - q[o]
                entry[o] = np.min(forward[j][:fit + 1] + backward[j + 1][fit::-1]) + val[o] + offset
    return RowBounds(float(backward[0][CELLS]) + offset, entry)


def _add(table: np.ndarray, group: np.ndarray, q: np.ndarray, val: np.ndarray) -> np.ndarray:
    """The table after one more component: each cell the least over its entries."""
    new = np.full(len(table), np.inf)
    for o in group:
        k = int(q[o])
        if k < len(table):
            np.minimum(new[k:], table[:len(table) - k] + val[o], out=new[k:])
    return new
