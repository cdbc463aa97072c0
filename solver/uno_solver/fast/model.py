"""The master model solved by HiGHS: the options of the small components plus the node formulation
of the large ones, coupled by the side rows (PCIe load per sNIC, capacity per sNIC and resource).

Columns, in this order:
  z_o      one per option (binary); a convexity row per small component picks one
  x_{p,l}  one per large node p and allowed location l (binary); an assignment row per node
  y_{e,s}  one per large edge e and sNIC s that both ends may use: y >= |x_{u,s} - x_{v,s}| says
           whether the edge crosses PCIe link s (continuous in [0, 1]; 0/1 once x is)
An edge with only one end allowed on sNIC s crosses link s exactly when that end is there, so its
load and cost go on that x column and need no y. Loads and costs are non-negative, so making y
larger than the crossing never helps, and the LP relaxation equals the Lagrangian dual of the side
rows over the min-cut subproblem.
"""
from __future__ import annotations

from dataclasses import dataclass

import highspy
import numpy as np

from .. import highs

from .blocks import Large, Options
from .decompose import Reduced

@dataclass(frozen=True, eq=False)
class Solution:
    """A HiGHS outcome: model status, objective and bound (with the constant), values, reduced costs."""

    status: str
    objective: float
    bound: float
    value: np.ndarray
    reduced_cost: np.ndarray


class Master:
    """The HiGHS model of a reduced problem; each solve runs on a fresh HiGHS instance.

    Invariant: column j is z for j < n_opt, then x (xcol[p, l], -1 where l is not allowed), then y
    (y_e, y_s: edge and sNIC of each y column); `integer` marks the z and x columns.
    """

    def __init__(self, red: Reduced, opts: Options, large: Large) -> None:
        self.red, self.opts, self.large = red, opts, large
        k = red.cross.shape[2]
        n_loc = k + 1
        allowed = np.isfinite(large.unary_cost)
        self.n_opt = len(opts.cost)
        self.xcol = np.full((len(large.nodes), n_loc), -1)
        self.xcol[allowed] = self.n_opt + np.arange(int(allowed.sum()))
        n_x = int(allowed.sum())
        both = allowed[large.eu][:, 1:] & allowed[large.ev][:, 1:]                 # (E, k)
        self.y_e, self.y_s = np.nonzero(both)
        self.n_col = self.n_opt + n_x + len(self.y_e)
        self.integer = np.arange(self.n_col) < self.n_opt + n_x
        self.lp = self._build(allowed)

    def _build(self, allowed: np.ndarray) -> highspy.HighsLp:
        red, opts, large = self.red, self.opts, self.large
        k, m = red.cross.shape[2], red.m
        n_comp, n_large = opts.n_comp, len(large.nodes)
        ycol = self.n_opt + int(allowed.sum()) + np.arange(len(self.y_e))
        yrow = n_comp + n_large + 2 * np.arange(len(self.y_e))
        side = n_comp + n_large + 2 * len(self.y_e)
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []

        def add(r: np.ndarray | int, c: np.ndarray, v: np.ndarray | float) -> None:
            r, c, v = np.broadcast_arrays(r, c, v)
            rows.append(r.ravel()), cols.append(c.ravel()), vals.append(v.ravel().astype(float))

        cost = np.zeros(self.n_col)
        opt_cols = np.arange(self.n_opt)
        cost[opt_cols] = opts.cost
        add(opts.comp, opt_cols, 1.0)
        add(side + np.arange(m)[None, :], opt_cols[:, None], opts.w)

        p, l = np.nonzero(allowed)
        xc = self.xcol[p, l]
        cost[xc] = large.unary_cost[p, l]
        add(n_comp + p, xc, 1.0)
        add(side + np.arange(m)[None, :], xc[:, None], large.unary_w[p, l])

        # An edge and sNIC with exactly one end allowed there: load and cost on that end's x.
        for mine, other in ((large.eu, large.ev), (large.ev, large.eu)):
            e, s = np.nonzero(allowed[mine][:, 1:] & ~allowed[other][:, 1:])
            c = self.xcol[mine[e], s + 1]
            add(side + s, c, large.gbps[e])
            np.add.at(cost, c, large.cost[e])

        u = self.xcol[large.eu[self.y_e], self.y_s + 1]
        v = self.xcol[large.ev[self.y_e], self.y_s + 1]
        for r, sign in ((yrow, 1.0), (yrow + 1, -1.0)):
            add(r, u, sign)
            add(r, v, -sign)
            add(r, ycol, -1.0)
        add(side + self.y_s, ycol, large.gbps[self.y_e])
        cost[ycol] = large.cost[self.y_e]

        n_eq = n_comp + n_large
        n_le = 2 * len(self.y_e)
        return highs.model(cost, np.r_[np.ones(n_eq), np.full(n_le + m, -highs.INF)],
                           np.r_[np.ones(n_eq), np.zeros(n_le), red.rhs], rows, cols, vals, offset=red.const)

    def solve_lp(self, time_limit: float) -> Solution:
        h = highs.new(time_limit)
        h.passModel(self.lp)
        h.run()
        return _solution(h, self.n_col, mip=False)

    def solve_mip(self, lower: np.ndarray, upper: np.ndarray, start: np.ndarray | None,
                  rel_gap: float, abs_gap: float, time_limit: float) -> Solution:
        h = highs.new(time_limit)
        h.setOptionValue("mip_rel_gap", rel_gap)
        h.setOptionValue("mip_feasibility_tolerance", 1e-8)
        h.setOptionValue("mip_abs_gap", abs_gap)
        h.passModel(self.lp)
        h.changeColsBounds(self.n_col, np.arange(self.n_col, dtype=np.int32), lower, upper)
        integer = np.flatnonzero(self.integer).astype(np.int32)
        h.changeColsIntegrality(len(integer), integer,
                                np.full(len(integer), int(highspy.HighsVarType.kInteger), dtype=np.uint8))
        if start is not None:
            sol = highspy.HighsSolution()
            sol.col_value = start.tolist()
            sol.value_valid = True
            h.setSolution(sol)
        h.run()
        return _solution(h, self.n_col, mip=True)

    def encode(self, chosen: np.ndarray, cloc: np.ndarray) -> np.ndarray:
        """Column values of the placement given by one option per component and large-node locations."""
        col = np.zeros(self.n_col)
        col[chosen] = 1.0
        col[self.xcol[np.arange(len(cloc)), cloc]] = 1.0
        eu, ev = self.large.eu[self.y_e], self.large.ev[self.y_e]
        col[self.n_col - len(self.y_e):] = (cloc[eu] == self.y_s + 1) != (cloc[ev] == self.y_s + 1)
        return col

    def decode(self, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Largest option per component and largest location per large node (a rounding of LP values)."""
        comp = self.opts.comp
        order = np.lexsort((-value[:self.n_opt], comp))
        first = np.r_[True, comp[order][1:] != comp[order][:-1]] if len(order) else np.zeros(0, bool)
        xv = np.where(self.xcol >= 0, value[np.maximum(self.xcol, 0)], -1.0)
        cloc = np.argmax(xv, axis=1) if len(xv) else np.zeros(0, dtype=np.int64)
        return order[first], cloc


def _solution(h: highspy.Highs, n_col: int, mip: bool) -> Solution:
    status = h.modelStatusToString(h.getModelStatus())
    info = h.getInfo()
    sol = h.getSolution()
    value = np.array(sol.col_value) if sol.value_valid else np.full(n_col, np.nan)
    reduced = np.array(sol.col_dual) if sol.dual_valid else np.zeros(n_col)
    objective = info.objective_function_value if sol.value_valid else np.inf
    bound = info.mip_dual_bound if mip else objective
    return Solution(status, objective, bound, value, reduced)
