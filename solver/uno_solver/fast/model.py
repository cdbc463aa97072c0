"""The master model solved by HiGHS: the options of the small components plus the node formulation
of the large ones, coupled by the side rows (PCIe load per sNIC, capacity per sNIC and resource).

Columns, in this order:
  z_o         one per option (binary); a convexity row per small component picks one
  x_{p,s}     one per large node p and sNIC s it may use (binary): p runs on sNIC s. The host is
              what is left, 1 - sum_s x_{p,s} (a row keeps the sum <= 1, or = 1 when p may not
              run on the host), so the host's cost and row use become constants.
  y+, y-      one pair per large edge e and sNIC s both ends may use, with
              x_{u,s} - x_{v,s} = y+ - y-: y+ + y- is 1 when the edge crosses PCIe link s
              (continuous; both in [0, 1])
An edge with only one end allowed on sNIC s crosses link s exactly when that end is there, so its
load and cost go on that x column. Loads and costs are non-negative, so y+ + y- never exceeds
|x_u - x_v| in an optimum that matters, and the LP relaxation equals the Lagrangian dual of the side
rows over the min-cut subproblem. (The difference form has one row per edge instead of two.)
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
    """A HiGHS outcome: model status, objective and bound (with the constant), values, reduced
    costs, and the row duals (LP only; empty otherwise)."""

    status: str
    objective: float
    bound: float
    value: np.ndarray
    reduced_cost: np.ndarray
    row_dual: np.ndarray


class Master:
    """The HiGHS model of a reduced problem; each solve runs on a fresh HiGHS instance.

    Invariant: column j is z for j < n_opt; then x, xcol[p, l] for sNIC location l >= 1 (-1 where
    not allowed; column 0, the host, is always -1); then the y pairs, y+ at y0 + 2j and y- at
    y0 + 2j + 1 for edge y_e[j] and sNIC y_s[j]. `integer` marks the z and x columns.
    """

    def __init__(self, red: Reduced, opts: Options, large: Large) -> None:
        self.red, self.opts, self.large = red, opts, large
        allowed = np.isfinite(large.unary_cost)
        self.host_ok = allowed[:, 0]
        self.n_opt = len(opts.cost)
        on_snic = allowed.copy()
        on_snic[:, 0] = False
        self.xcol = np.full(allowed.shape, -1)
        self.xcol[on_snic] = self.n_opt + np.arange(int(on_snic.sum()))
        self.y0 = self.n_opt + int(on_snic.sum())
        both = allowed[large.eu][:, 1:] & allowed[large.ev][:, 1:]                 # (E, k)
        self.y_e, self.y_s = np.nonzero(both)
        self.n_col = self.y0 + 2 * len(self.y_e)
        self.integer = np.arange(self.n_col) < self.y0
        self.lp = self._build(allowed)

    def _build(self, allowed: np.ndarray) -> highspy.HighsLp:
        red, opts, large = self.red, self.opts, self.large
        m, n_comp = red.m, opts.n_comp
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []

        def add(r: np.ndarray | int, c: np.ndarray, v: np.ndarray | float) -> None:
            r, c, v = np.broadcast_arrays(r, c, v)
            rows.append(r.ravel()), cols.append(c.ravel()), vals.append(v.ravel().astype(float))

        # rows: option convexity, node "at most one sNIC" (where needed), y pairs, side rows
        several = (self.xcol >= 0).sum(axis=1) > 1
        node_rows = np.flatnonzero(several | ~self.host_ok)
        node_row = np.full(len(large.nodes), -1)
        node_row[node_rows] = n_comp + np.arange(len(node_rows))
        yrow = n_comp + len(node_rows) + np.arange(len(self.y_e))
        side = n_comp + len(node_rows) + len(self.y_e)
        self.side = side

        cost = np.zeros(self.n_col)
        opt_cols = np.arange(self.n_opt)
        cost[opt_cols] = opts.cost
        add(opts.comp, opt_cols, 1.0)
        add(side + np.arange(m)[None, :], opt_cols[:, None], opts.w)

        # x: measured against the host, whose cost and row use become constants
        base_cost = np.where(self.host_ok, large.unary_cost[:, 0], 0.0)
        base_w = np.where(self.host_ok[:, None], large.unary_w[:, 0], 0.0)
        p, loc = np.nonzero(self.xcol >= 0)
        xc = self.xcol[p, loc]
        cost[xc] = large.unary_cost[p, loc] - base_cost[p]
        add(side + np.arange(m)[None, :], xc[:, None], large.unary_w[p, loc] - base_w[p])
        has_row = node_row[p] >= 0
        add(node_row[p[has_row]], xc[has_row], 1.0)

        # an edge and sNIC with exactly one end allowed there: load and cost on that end's x
        for mine, other in ((large.eu, large.ev), (large.ev, large.eu)):
            e, s = np.nonzero(allowed[mine][:, 1:] & ~allowed[other][:, 1:])
            c = self.xcol[mine[e], s + 1]
            add(side + s, c, large.gbps[e])
            np.add.at(cost, c, large.cost[e])

        ypos = self.y0 + 2 * np.arange(len(self.y_e))
        add(yrow, self.xcol[large.eu[self.y_e], self.y_s + 1], 1.0)
        add(yrow, self.xcol[large.ev[self.y_e], self.y_s + 1], -1.0)
        add(yrow, ypos, -1.0)
        add(yrow, ypos + 1, 1.0)
        for c in (ypos, ypos + 1):
            add(side + self.y_s, c, large.gbps[self.y_e])
            cost[c] = large.cost[self.y_e]

        node_lower = np.where(self.host_ok[node_rows], -highs.INF, 1.0)
        lower = np.r_[np.ones(n_comp), node_lower, np.zeros(len(self.y_e)), np.full(m, -highs.INF)]
        upper = np.r_[np.ones(n_comp + len(node_rows)), np.zeros(len(self.y_e)), red.rhs - base_w.sum(axis=0)]
        return highs.model(cost, lower, upper, rows, cols, vals, offset=red.const + base_cost.sum())

    def multipliers(self, lp: Solution) -> np.ndarray:
        """The LP's duals of the side rows as Lagrange multipliers (>= 0; rows are <=)."""
        if len(lp.row_dual) < self.side + self.red.m:
            return np.zeros(self.red.m)
        return np.maximum(-lp.row_dual[self.side:self.side + self.red.m], 0.0)

    def solve_lp(self, time_limit: float) -> Solution:
        """The LP relaxation; the solved HiGHS instance stays in `lp_highs` for warm starts."""
        h = highs.new(time_limit)
        h.passModel(self.lp)
        h.run()
        self.lp_highs = h
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
        on = cloc > 0
        col[self.xcol[np.flatnonzero(on), cloc[on]]] = 1.0
        at_u = cloc[self.large.eu[self.y_e]] == self.y_s + 1
        at_v = cloc[self.large.ev[self.y_e]] == self.y_s + 1
        ypos = self.y0 + 2 * np.arange(len(self.y_e))
        col[ypos] = at_u & ~at_v
        col[ypos + 1] = at_v & ~at_u
        return col

    def decode(self, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Largest option per component and likeliest location per large node (exact on 0/1 values)."""
        return self.roundings(value, 0)[0]

    def roundings(self, value: np.ndarray, thresholds: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Roundings of LP values: the largest option per component, and for the large nodes the
        likeliest location, then `thresholds` threshold roundings (a node goes to its likeliest
        sNIC when its total sNIC share reaches the threshold). For one sNIC the LP optimum is a
        mixture of such threshold cuts, so one of them is often close to it."""
        comp = self.opts.comp
        order = np.lexsort((-value[:self.n_opt], comp))
        first = np.r_[True, comp[order][1:] != comp[order][:-1]] if len(order) else np.zeros(0, bool)
        chosen = order[first]
        share = np.where(self.xcol >= 0, value[np.maximum(self.xcol, 0)], -np.inf)
        on_snic = np.where(self.xcol >= 0, share, 0.0).sum(axis=1)
        share[:, 0] = np.where(self.host_ok, 1.0 - on_snic, -np.inf)
        if not len(share):
            return [(chosen, np.zeros(0, dtype=np.int64))]
        likeliest = np.argmax(share, axis=1)
        out = [(chosen, likeliest)]
        best_snic = 1 + np.argmax(share[:, 1:], axis=1)
        levels = np.unique(on_snic[(on_snic > 1e-6) & (on_snic < 1 - 1e-6)])
        if len(levels) and thresholds:
            picks = levels[np.linspace(0, len(levels) - 1, min(thresholds, len(levels))).round().astype(int)]
            for theta in picks:
                out.append((chosen, np.where((on_snic >= theta) | ~self.host_ok, best_snic, 0)))
        return out


def _solution(h: highspy.Highs, n_col: int, mip: bool) -> Solution:
    status = h.modelStatusToString(h.getModelStatus())
    info = h.getInfo()
    sol = h.getSolution()
    value = np.array(sol.col_value) if sol.value_valid else np.full(n_col, np.nan)
    reduced = np.array(sol.col_dual) if sol.dual_valid else np.zeros(n_col)
    row_dual = np.array(sol.row_dual) if sol.dual_valid and not mip else np.zeros(0)
    objective = info.objective_function_value if sol.value_valid else np.inf
    bound = info.mip_dual_bound if mip else objective
    return Solution(status, objective, bound, value, reduced, row_dual)
