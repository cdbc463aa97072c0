"""LP diving: a primal heuristic for the large components, where rounding the LP fails.

On a random graph with a tight PCIe limit the LP optimum mixes two nested cuts: a few nodes on
the sNIC and most of a large cluster at one common fraction (for one sNIC it is 0.38 on 365 of 407
nodes of a 500-node graph). Rounding that gives either the small cut or a placement far over the
limit, and single-node repairs do not find the clusters the optimum is made of. The dive re-solves
the LP (warm, same HiGHS instance) after fixing columns, so that the LP itself decides where the
remaining fraction goes: each round fixes every 0/1 column at its value and sends the share
`_SHARE` of the fractional columns with the lowest values to 0 (or, if that makes the LP
infeasible, the highest to 1; halving the batch until one fits). It stops when the LP is integral
or no fixing fits, and the heuristic's repair and improvement finish from the last LP solution.
"""
from __future__ import annotations

from collections.abc import Callable

import highspy
import numpy as np

from .heuristic import Point, search
from .model import Master

_SHARE = 0.02        # share of the fractional columns fixed per round
_EPS = 1e-6         # an LP value this close to 0 or 1 counts as integral
_THRESHOLDS = 8     # threshold roundings of the last LP solution tried by the repair


def dive(master: Master, lam: np.ndarray, out_of_time: Callable[[], bool]) -> Point | None:
    """A feasible placement found by diving from the LP solved last by `master.solve_lp`, or None.
    `lam`: multipliers of the side rows, to break ties between equal LP values (see `_price`)."""
    h: highspy.Highs = master.lp_highs
    n_col = master.n_col
    integer = np.flatnonzero(master.integer)
    lower, upper = np.zeros(n_col), np.ones(n_col)
    value = np.array(h.getSolution().col_value)
    price = _price(master, lam)

    def push(cols: np.ndarray) -> None:
        h.changeColsBounds(len(cols), cols.astype(np.int32), lower[cols], upper[cols])

    def bounds(cols: np.ndarray) -> bool:
        push(cols)
        h.run()
        return h.getModelStatus() == highspy.HighsModelStatus.kOptimal

    while not out_of_time():
        free = integer[upper[integer] > lower[integer]]
        fractional = (value[free] > _EPS) & (value[free] < 1 - _EPS)
        frac, settled = free[fractional], free[~fractional]
        if not len(frac):
            break
        lower[settled] = upper[settled] = np.round(value[settled])
        push(settled)
        order = frac[np.lexsort((-price[frac], np.round(value[frac], 9)))]
        if not _fix_batch(order, lower, upper, bounds):
            lower[settled], upper[settled] = 0.0, 1.0
            if not (bounds(settled) and _fix_batch(order, lower, upper, bounds)):
                break
        value = np.array(h.getSolution().col_value)
    if not np.all(np.isfinite(value)):
        return None
    found = search(master.red, master.opts, master.large, master.roundings(value, _THRESHOLDS), out_of_time)
    return found if found.feasible(master.red.rhs) else None


def _price(master: Master, lam: np.ndarray) -> np.ndarray:
    """Lagrangian price of each 0/1 column taken alone: an option's reduced cost within its
    component; for a node on an sNIC, its cost and row use against the host, with every edge to
    another large node counted as crossing. Among equal LP values, the dearest go to 0 first."""
    opts, large, red = master.opts, master.large, master.red
    k = red.cross.shape[2]
    price = np.zeros(master.n_col)
    val = opts.cost + opts.w @ lam
    low = np.full(opts.n_comp, np.inf)
    np.minimum.at(low, opts.comp, val)
    price[:master.n_opt] = val - low[opts.comp]
    incident = np.bincount(np.r_[large.eu, large.ev], weights=np.r_[large.gbps, large.gbps],
                           minlength=len(large.nodes))
    p, loc = np.nonzero(master.xcol >= 0)
    alone = (large.unary_cost[p, loc] - np.where(master.host_ok[p], large.unary_cost[p, 0], 0.0)
             + (large.unary_w[p, loc] - np.where(master.host_ok[p, None], large.unary_w[p, 0], 0.0)) @ lam
             + lam[loc - 1] * incident[p] * (loc - 1 < k))
    price[master.xcol[p, loc]] = np.where(np.isfinite(alone), alone, 0.0)
    return price


def _fix_batch(order: np.ndarray, lower: np.ndarray, upper: np.ndarray,
               bounds: Callable[[np.ndarray], bool]) -> bool:
    """Fix the lowest share of `order` (fractional columns by LP value) to 0, else the highest to
    1, halving the batch until the LP stays feasible. False when not even one column fits."""
    size = max(1, int(_SHARE * len(order)))
    while size >= 1:
        for cols, at in ((order[:size], 0.0), (order[-size:], 1.0)):
            lower[cols], upper[cols] = at, at
            if bounds(cols):
                return True
            lower[cols], upper[cols] = 0.0, 1.0
            bounds(cols)
        size //= 2
    return False
