"""Lagrangian bound, per-component menus of cheap placements, and an exact search over them.

Fix multipliers lam >= 0 on the side rows (the LP's duals). For a placement p of component c let
val_c(p) = cost_c(p) + lam . w_c(p) and rc_c(p) = val_c(p) - min val_c >= 0. Then for every
placement x of the free nodes

    cost(x) = LB + sum_c rc_c(x_c) + lam . (rhs - w(x)),    LB = sum_c min val_c - lam . rhs + const,

and for a feasible x the last term is >= 0. So a placement cheaper than U has sum_c rc_c(x_c) < U - LB,
and in particular every component is placed by one of its placements with rc below D = U - LB: its
*menu*. `min val_c` of a component is a minimum cut (integral), so LB is the LP bound again; what
this buys is the menus: with a good incumbent, U - LB is small and most components have one or a
few placements in their menu, found without enumerating the others:

- a small component (at most FULL_ENUM placements) is enumerated whole, once (blocks.enumerate_options);
- a tree (every component of a service-chain-like graph is one) by dynamic programming: min-marginals
  bottom-up, then a depth-first walk that lists exactly the placements with val <= min val + D;
- any other component (a random graph's giant component) makes menus unavailable.

`search` then looks for the cheapest feasible combination with sum rc < D, breadth first over the
components with pruning (rc budget, rows that cannot be met, slack that cannot be used); when it
runs to the end, that combination is optimal among all placements cheaper than LB + D. It gives up
past a number of states; the caller then hands the menus (what rowdp.py's bounds leave of them) to
HiGHS as a multiple-choice knapsack (`mck_mip`), which proves the same thing by branch and bound.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import highspy
import numpy as np

from .. import highs
from ..problem import FEAS_TOL
from .blocks import Options, enumerate_options
from .decompose import Reduced

FULL_ENUM = 4096         # components with at most this many placements are enumerated whole
TREE_MENU_CAP = 20000    # a tree's menu longer than this makes menus unavailable at that D
TOL = FEAS_TOL / 2       # rows: what the search accepts always passes the final check
_EPS = 1e-9              # relative slack on rc comparisons (floating-point sums)
_BLOCK = 1 << 16         # successors the search builds at once (states x entries)


@dataclass(frozen=True, eq=False)
class Menu:
    """O placements over C components: comp (O,), cost (O,), w (O, m), rc (O,).

    Entry o is option ref[o] of `small` (a blocks.Options) when ref[o] >= 0, else it places the
    free nodes extra_nodes[-1 - ref[o]] at extra_locs[-1 - ref[o]]. Every component has at least
    one entry (its cheapest in val, rc = 0).
    """

    comp: np.ndarray
    cost: np.ndarray
    w: np.ndarray
    rc: np.ndarray
    ref: np.ndarray
    small: Options | None
    extra_nodes: list[np.ndarray]
    extra_locs: list[np.ndarray]
    n_comp: int

    def write(self, chosen: np.ndarray, free_loc: np.ndarray) -> None:
        """Write the locations of the chosen entries (one per component) into `free_loc`."""
        for o in chosen:
            j = int(self.ref[o])
            if j >= 0:
                nodes, grid = self.small.groups[self.small.group[j]]
                free_loc[nodes[self.small.row[j]]] = grid[self.small.grid_row[j]]
            else:
                free_loc[self.extra_nodes[-1 - j]] = self.extra_locs[-1 - j]


class Lagrangian:
    """The Lagrangian bound of a reduced problem at `lam`, and menus of its components.

    `None` from `build` when some component is neither small nor a tree. Components are numbered
    0..C-1: the small ones first (as enumerate_options numbers them, by label), then the trees.
    """

    def __init__(self, red: Reduced, lam: np.ndarray, small: np.ndarray, trees: list[_Tree]) -> None:
        self.red, self.lam = red, lam
        self.trees = trees
        self.n_small = 0
        mins = []
        if small.any():
            opts = enumerate_options(red, small)
            val = opts.cost + opts.w @ lam
            low = np.full(opts.n_comp, np.inf)
            np.minimum.at(low, opts.comp, val)
            self.small_opts, self.small_rc = opts, val - low[opts.comp]
            self.n_small = opts.n_comp
            mins.append(low)
        mins.append(np.array([t.low for t in trees]))
        self.n_comp = self.n_small + len(trees)
        self.low = np.concatenate(mins)                     # min val of each component
        self.lb = float(self.low.sum() - lam @ red.rhs + red.const)

    @classmethod
    def build(cls, red: Reduced, lam: np.ndarray) -> Lagrangian | None:
        n_loc = red.unary_cost.shape[1]
        label = red.label
        size = np.bincount(label, minlength=len(label))
        edges = np.bincount(label[red.pair_u], minlength=len(label))
        roots = np.flatnonzero(size > 0)
        placements = np.exp(np.minimum(size[roots], 64) * math.log(n_loc))
        is_small = placements <= FULL_ENUM + 0.5
        if not np.all(is_small | (edges[roots] == size[roots] - 1)):
            return None
        small = is_small[np.searchsorted(roots, label)]
        trees = [_Tree(red, lam, np.flatnonzero(label == root)) for root in roots[~is_small]]
        return cls(red, lam, small, trees)

    def menu(self, d: float, cap: int = TREE_MENU_CAP) -> Menu | None:
        """Every placement with rc < d of every component (None when a tree's menu exceeds `cap`)."""
        m = self.red.m
        comp, cost, w, rc, ref = [], [], [], [], []
        extra_nodes: list[np.ndarray] = []
        extra_locs: list[np.ndarray] = []
        small = None
        if self.n_small:
            small = self.small_opts
            keep = np.flatnonzero(self.small_rc < d)
            comp.append(small.comp[keep])
            cost.append(small.cost[keep])
            w.append(small.w[keep])
            rc.append(self.small_rc[keep])
            ref.append(keep)
        for j, tree in enumerate(self.trees):
            listed = tree.menu(d, cap)
            if listed is None:
                return None
            t_cost, t_w, t_rc, t_locs = listed
            comp.append(np.full(len(t_cost), self.n_small + j))
            cost.append(t_cost)
            w.append(t_w)
            rc.append(t_rc)
            ref.append(-1 - len(extra_nodes) - np.arange(len(t_cost)))
            extra_nodes.extend([tree.nodes] * len(t_cost))
            extra_locs.extend(t_locs)
        return Menu(_cat(comp, np.int64), _cat(cost), np.concatenate(w) if w else np.zeros((0, m)), _cat(rc),
                    _cat(ref, np.int64), small, extra_nodes, extra_locs, self.n_comp)


def by_component(comp: np.ndarray, entries: np.ndarray) -> list[np.ndarray]:
    """`entries` (indices into `comp`) split by their component, in increasing component order,
    each part in its original order; components without an entry get no part."""
    entries = entries[np.argsort(comp[entries], kind="stable")]
    c = comp[entries]
    return np.split(entries, np.flatnonzero(c[1:] != c[:-1]) + 1) if len(entries) else []


def _cat(parts: list[np.ndarray], dtype: type = float) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


class _Tree:
    """A tree component: min-marginal dynamic programming and the listing of its cheap placements."""

    def __init__(self, red: Reduced, lam: np.ndarray, nodes: np.ndarray) -> None:
        self.red, self.nodes = red, nodes
        k = red.cross.shape[2]
        n_loc = red.unary_cost.shape[1]
        local = {int(v): i for i, v in enumerate(nodes)}
        inside = np.flatnonzero(np.isin(red.pair_u, nodes))
        adj: list[list[tuple[int, int]]] = [[] for _ in nodes]
        for e in inside:
            a, b = local[int(red.pair_u[e])], local[int(red.pair_v[e])]
            adj[a].append((b, int(e)))
            adj[b].append((a, int(e)))
        # preorder from node 0, parents and the edge to the parent
        parent, up_edge = [-1] * len(nodes), [-1] * len(nodes)
        stack, seen, order = [0], {0}, []
        while stack:
            v = stack.pop()
            order.append(v)
            for u, e in reversed(adj[v]):
                if u not in seen:
                    seen.add(u)
                    parent[u], up_edge[u] = v, e
                    stack.append(u)
        self.order, self.parent, self.up_edge, self.lam = order, parent, up_edge, lam
        self.children: list[list[int]] = [[] for _ in nodes]
        for v in order[1:]:
            self.children[parent[v]].append(v)
        unary = red.unary_cost[nodes] + red.unary_w[nodes] @ lam                     # (n, L), inf = not allowed
        self.unary = np.where(np.isfinite(unary), unary, np.inf)
        pcie_val = red.cross @ lam[:k]                                              # (L, L)
        crossings = red.cross.sum(axis=2)
        self.edge = [np.zeros((n_loc, n_loc)) if e < 0 else
                     red.pair_gbps[e] * pcie_val + red.pair_cost[e] * crossings for e in up_edge]
        best = self.unary.copy()
        msg = np.zeros((len(nodes), n_loc))                  # msg[v][s_parent]: best of v's subtree
        for v in reversed(order):
            for c in self.children[v]:
                best[v] += msg[c]
            if parent[v] >= 0:
                msg[v] = np.min(self.edge[v] + best[v][None, :], axis=1)
        self.best, self.msg = best, msg
        self.low = float(best[0].min())

    def menu(self, d: float, cap: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]] | None:
        """Placements with rc < d: cost, w, rc and locations; None past `cap` of them."""
        n_loc = self.unary.shape[1]
        limit = self.low + d
        slack = _EPS * max(1.0, abs(self.low))
        order, parent, children = self.order, self.parent, self.children
        unary, edge, msg = self.unary, self.edge, self.msg
        n = len(order)
        loc = np.zeros(len(self.nodes), dtype=np.int64)
        out: list[np.ndarray] = []

        def walk(pos: int, partial: float, rest: float) -> bool:
            if pos == n:
                if partial < limit + slack:
                    out.append(loc.copy())
                return len(out) <= cap
            v = order[pos]
            p = parent[v]
            pend = msg[v][loc[p]] if p >= 0 else self.best[0].min()
            for s in range(n_loc):
                inc = unary[v][s] + (edge[v][loc[p], s] if p >= 0 else 0.0)
                if not math.isfinite(inc):
                    continue
                new_rest = rest - pend + sum(msg[c][s] for c in children[v])
                if partial + inc + new_rest < limit + slack:
                    loc[v] = s
                    if not walk(pos + 1, partial + inc, new_rest):
                        return False
            return True

        if not walk(0, 0.0, self.low):
            return None
        placed = np.array(out, dtype=np.int64).reshape(-1, len(self.nodes))
        cost, w = self._use(placed)
        rc = cost + w @ self.lam - self.low
        keep = rc < d
        return cost[keep], w[keep], rc[keep], [row for row in placed[keep]]

    def _use(self, placed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        red, nodes = self.red, self.nodes
        k = red.cross.shape[2]
        cols = np.arange(len(nodes))
        cost = red.unary_cost[nodes[cols][None, :], placed].sum(axis=1)
        w = red.unary_w[nodes[cols][None, :], placed].sum(axis=1)
        for v in self.order[1:]:
            e = self.up_edge[v]
            c = red.cross[placed[:, self.parent[v]], placed[:, v]]                 # (B, k)
            cost += red.pair_cost[e] * c.sum(axis=1)
            w[:, :k] += red.pair_gbps[e] * c
        return cost, w


def combinations(menu: Menu, d: float, bins: int = 512) -> float:
    """An upper bound on the number of combinations (one entry per component) with sum rc < d:
    the most states `search` can hold at any stage."""
    if d <= 0:
        return 0.0
    keep = menu.rc < d
    count = np.zeros(bins)
    count[0] = 1.0
    cell = np.minimum(menu.rc / d * bins, bins - 1).astype(np.int64)
    for part in by_component(menu.comp, np.flatnonzero(keep)):
        if len(part) == 1 and cell[part[0]] == 0:
            continue
        new = np.zeros(bins)
        for c in cell[part]:
            new[c:] += count[:bins - c]
        count = new
    return float(count.sum())


@dataclass(frozen=True)
class Found:
    """What `search` proved: status "complete" (every combination with sum rc < d and cost below
    the target was examined), "cap" (too many states) or "time"; the best combination found
    (cost including the constant, one menu entry per component) or None."""

    status: str
    cost: float
    chosen: np.ndarray | None


def search(menu: Menu, red: Reduced, lam: np.ndarray, lb: float, target: float, d: float, cap: int,
           out_of_time: Callable[[], bool]) -> Found:
    """The cheapest feasible combination with sum rc < d and cost < target, breadth first over
    the components that have a choice."""
    if d <= 0:
        return Found("complete", math.inf, None)
    cand = menu.rc < d
    count = np.bincount(menu.comp[cand], minlength=menu.n_comp)
    if np.any(count == 0):
        return Found("complete", math.inf, None)
    single = np.flatnonzero(cand & (count[menu.comp] == 1))
    fixed_w = menu.w[single].sum(axis=0)
    fixed_cost = float(menu.cost[single].sum()) + red.const
    fixed_rc = float(menu.rc[single].sum())
    lists = by_component(menu.comp, np.flatnonzero(cand & (count[menu.comp] > 1)))
    lists.sort(key=len)
    m = red.m
    low_w = np.array([menu.w[entries].min(axis=0) for entries in lists]).reshape(-1, m)
    high_w = np.array([menu.w[entries].max(axis=0) for entries in lists]).reshape(-1, m)
    rest_low = np.r_[np.cumsum(low_w[::-1], axis=0)[::-1], np.zeros((1, m))]
    rest_high = np.r_[np.cumsum(high_w[::-1], axis=0)[::-1], np.zeros((1, m))]
    margin = _EPS * max(1.0, abs(target))
    cost = np.array([fixed_cost])
    use = fixed_w[None, :]
    rc = np.array([fixed_rc])
    parents: list[np.ndarray] = []
    picks: list[np.ndarray] = []
    for stage, entries in enumerate(lists):
        if out_of_time():
            return Found("time", math.inf, None)
        # the successors of every state, a block of states at a time, so that a stage that will pass
        # the cap stops after about cap successors kept instead of building all of them first (one
        # 100-node host spent 3 s here building stages of 20,000 states x 500 entries it then dropped)
        kept_parent, kept_pick, kept_rc, kept_use = [], [], [], []
        n_kept = 0
        block = max(1, _BLOCK // len(entries))
        for first in range(0, len(rc), block):
            s_rc, s_use = rc[first:first + block], use[first:first + block]
            new_rc = (s_rc[:, None] + menu.rc[entries][None, :]).ravel()
            new_use = (s_use[:, None, :] + menu.w[entries][None, :, :]).reshape(-1, m)
            unused = np.maximum(red.rhs - new_use - rest_high[stage + 1], 0.0)
            ok = ((new_rc < d)
                  & np.all(new_use + rest_low[stage + 1] <= red.rhs + TOL, axis=1)
                  & (lb + new_rc + unused @ lam < target + margin))
            keep = np.flatnonzero(ok)
            n_kept += len(keep)
            if n_kept > cap:
                return Found("cap", math.inf, None)
            kept_parent.append(first + keep // len(entries))
            kept_pick.append(entries[keep % len(entries)])
            kept_rc.append(new_rc[keep])
            kept_use.append(new_use[keep])
        if not n_kept:
            return Found("complete", math.inf, None)
        parent, pick = np.concatenate(kept_parent), np.concatenate(kept_pick)
        cost = cost[parent] + menu.cost[pick]
        use, rc = np.concatenate(kept_use), np.concatenate(kept_rc)
        parents.append(parent)
        picks.append(pick)
    fits = np.all(use <= red.rhs + TOL, axis=1) & (cost < target + margin)
    if not fits.any():
        return Found("complete", math.inf, None)
    i = int(np.flatnonzero(fits)[np.argmin(cost[fits])])
    best = float(cost[i])
    chosen = np.full(menu.n_comp, -1, dtype=np.int64)
    chosen[menu.comp[single]] = single
    for stage in range(len(lists) - 1, -1, -1):
        o = picks[stage][i]
        chosen[menu.comp[o]] = o
        i = parents[stage][i]
    return Found("complete", best, chosen)


@dataclass(frozen=True)
class MipResult:
    """HiGHS on the multiple-choice knapsack of a menu: model status, objective and bound
    (constant included), and the chosen entries (None when it found no solution)."""

    status: str
    objective: float
    bound: float
    chosen: np.ndarray | None


def mck_mip(menu: Menu, red: Reduced, entries: np.ndarray, rel_gap: float, abs_gap: float,
            time_limit: float, cutoff: float = math.inf, good_enough: float = -math.inf) -> MipResult:
    """Solve: one of `entries` per component, the side rows, least cost. With a finite `cutoff`
    HiGHS looks only for combinations cheaper than it: "Infeasible" then means there is none. It
    stops at the first combination that costs at most `good_enough` (the caller has a bound that
    close)."""
    n_col, n_comp, m = len(entries), menu.n_comp, red.m
    col = np.arange(n_col)
    rows = [menu.comp[entries]] + [np.full(n_col, n_comp + r) for r in range(m)]
    cols = [col] * (m + 1)
    vals = [np.ones(n_col)] + [menu.w[entries, r] for r in range(m)]
    lp = highs.model(menu.cost[entries], np.r_[np.ones(n_comp), np.full(m, -highs.INF)],
                     np.r_[np.ones(n_comp), red.rhs], rows, cols, vals, offset=red.const)
    h = highs.new(time_limit)
    h.setOptionValue("mip_rel_gap", rel_gap)
    h.setOptionValue("mip_abs_gap", abs_gap)
    h.setOptionValue("mip_feasibility_tolerance", 1e-8)
    # After the DP's fixing these knapsacks have 100-400 columns, and HiGHS spent most of its time
    # in RINS and RENS sub-MIPs: without them the 500-node chain graphs (seeds 0-5) went from a
    # median of 0.134 s to 0.108 s (seeds 6-11: 0.078 s to 0.073 s), and none got much slower.
    h.setOptionValue("mip_heuristic_run_rins", False)
    h.setOptionValue("mip_heuristic_run_rens", False)
    if math.isfinite(cutoff):
        h.setOptionValue("objective_bound", float(cutoff))
    if math.isfinite(good_enough):
        h.setOptionValue("objective_target", float(good_enough))
    h.passModel(lp)
    h.changeColsIntegrality(n_col, col.astype(np.int32),
                            np.full(n_col, int(highspy.HighsVarType.kInteger), dtype=np.uint8))
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    info = h.getInfo()
    sol = h.getSolution()
    if not sol.value_valid:
        return MipResult(status, math.inf, info.mip_dual_bound, None)
    value = np.array(sol.col_value)
    order = np.lexsort((-value, menu.comp[entries]))
    comp_sorted = menu.comp[entries][order]
    first = np.r_[True, comp_sorted[1:] != comp_sorted[:-1]]
    chosen = np.full(n_comp, -1, dtype=np.int64)
    chosen[comp_sorted[first]] = entries[order[first]]
    return MipResult(status, info.objective_function_value, info.mip_dual_bound, chosen)
