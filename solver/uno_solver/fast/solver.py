"""The fast exact solver: presolve, decomposition, LP bound, primal heuristics, then either an
exact search over per-component menus (every component small or a tree: service-chain graphs) or
a MIP over what reduced-cost fixing leaves, with a certified gap whenever it stops early.

1. Presolve (decompose.py): pinned nodes become constants; free nodes split into components.
2. Small components are enumerated into options, large ones keep the node formulation (blocks.py).
3. The LP relaxation of the master (model.py) gives a lower bound LB, reduced costs, and the
   duals of the side rows (PCIe and capacity), used below as Lagrange multipliers.
4. The heuristic (heuristic.py) rounds the LP solution, or starts from the current placement when every
   node has one (a warm start), and repairs/improves it: UB. (When the time limit stops the LP itself,
   the current placement, if it meets the limits, is the answer, with no bound.)
5. If UB - LB is within the tolerance, done.
6. Menus (lagrange.py), when every component is small or a tree: a placement cheaper than the
   target T = UB less the tolerance places each component by one of its placements whose
   Lagrangian reduced cost is below T - LB. A breadth-first search over these menus, deepened
   from a small threshold up to T - LB, improves UB and, when it completes at T - LB, proves it;
   if it holds too many states, HiGHS solves the multiple-choice knapsack of the menus instead,
   given only the entries a one-row DP bound (rowdp.py) leaves below a ceiling raised from that
   bound towards T (its bound is then min(knapsack bound, ceiling)). Either way this is the answer.
7. Otherwise: RENS (a short MIP over the fractional columns, when few are) and an LP dive
   (dive.py) improve UB; every column whose reduced cost exceeds UB - LB is fixed at its LP value,
   and HiGHS solves the remaining core, starting from the best placement found before the dive.
When the time limit stops step 7, the certified bound is max(LB, min(core bound, UB)): every
placement better than UB lies in the core.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..outcome import ABS_GAP, Outcome, within
from ..problem import Problem, evaluate
from . import lagrange, rowdp
from .blocks import split
from .decompose import Reduced, reduce
from .dive import dive
from .heuristic import Moves, Point, search
from .model import Master, Solution

_FIX_EPS = 1e-9    # an LP value this close to a bound counts as at the bound
_THRESHOLDS = 16   # threshold roundings of the LP solution tried as starting points
_RENS_SHARE = 0.25     # RENS runs when at most this share of the 0/1 columns is fractional, with
_RENS_SECONDS = 1.0    # at most this share of the time left, and at most this long
_MIP_MIN_LPS = 2.0     # the final MIP runs only with time left for this many root-LP solves
_STATES = 20000        # the menu search gives up past this many states (then HiGHS takes the menus)
_DEEPEN_FROM = 64      # the first menu search looks below this fraction of the reduced-cost gap
_DEEPEN_STEP = 2.0     # and multiplies it by this until it reaches the gap
_DIVE_SHARE = 0.7      # the LP dive may use this share of the time left
_HOPELESS = 1000       # skip a menu search whose combination bound exceeds this many times _STATES


def solve(problem: Problem, rel_gap: float, time_limit: float | None,
          clock: Callable[[], float]) -> Outcome:
    start = clock()

    def left() -> float:
        return math.inf if time_limit is None else time_limit - (clock() - start)

    red = reduce(problem)
    if len(red.free) == 0:
        return _all_fixed(red)
    master = Master(red, *split(red))
    opts, large = master.opts, master.large
    lp_start = clock()
    lp = master.solve_lp(left())
    lp_seconds = clock() - lp_start
    lb = _lp_bound(lp)
    if not math.isfinite(lb):
        # the LP did not finish in time (-inf) or proved the problem infeasible (inf); out of time, the
        # placement in force is still an answer when it meets the limits (with no bound), rather than none
        current = _feasible_current(master) if lb == -math.inf else None
        return _outcome(master, current, lb) if current is not None else Outcome(None, lb)

    starts = master.roundings(lp.value, _THRESHOLDS) + _current(master)
    pt = search(red, opts, large, starts, lambda: left() <= 0)
    incumbent = pt if pt.feasible(red.rhs) else None
    ub = incumbent.cost if incumbent is not None else math.inf
    if incumbent is not None and not within(ub, lb, rel_gap) and left() > 0:
        proven, incumbent = _by_menus(master, lp, incumbent, rel_gap, left)
        if proven is not None:
            return proven
        ub = incumbent.cost
    if not within(ub, lb, rel_gap) and left() > 0:
        found = _rens(master, lp, rel_gap, min(_RENS_SHARE * left(), _RENS_SECONDS))
        if found is not None and found.cost < ub:
            incumbent, ub = found, found.cost
    # HiGHS starts from the best placement found so far, but not from the dive's: given that one
    # (as its start, or only as its cutoff) it searched differently and proved more slowly (six
    # random graphs of 500 nodes: 398,000 LP iterations in all became 597,000, one 57,000 -> 214,000).
    # The dive's placement is what a time limit returns when HiGHS finds nothing better.
    start_pt = incumbent
    if len(large.nodes) and not within(ub, lb, rel_gap) and left() > 0:
        stop = clock() + _DIVE_SHARE * left()
        found = dive(master, master.multipliers(lp), lambda: clock() >= stop)
        if found is not None and found.cost < ub:
            incumbent, ub = found, found.cost
    # HiGHS checks its clock only between LP solves, so it overruns its limit by up to one solve
    # (a second at 5,000 nodes on a busy machine): it gets the time left minus one LP solve, and
    # does not run without time for at least one.
    if within(ub, lb, rel_gap) or left() < _MIP_MIN_LPS * lp_seconds:
        return _outcome(master, incumbent, lb)

    lower, upper = _fix(lp, ub - lb)
    begin = None
    if start_pt is not None:
        begin = master.encode(start_pt.chosen, start_pt.cloc)
        lower, upper = np.minimum(lower, begin), np.maximum(upper, begin)
    mip = master.solve_mip(lower, upper, begin, rel_gap, ABS_GAP, left() - lp_seconds)
    if mip.status == "Infeasible":
        return _outcome(master, incumbent, math.inf if incumbent is None else ub)
    if np.all(np.isfinite(mip.value)):
        found = _point(master, *master.decode(mip.value))
        if found.feasible(red.rhs) and found.cost < ub:
            incumbent, ub = found, found.cost
    return _outcome(master, incumbent, max(lb, min(mip.bound, ub)))


def root_bound(problem: Problem, time_limit: float = math.inf) -> float:
    """The bound every solve starts from: the LP relaxation of the master, which equals the best
    Lagrangian bound of the side rows over the min-cut subproblem (inf: proven infeasible; -inf:
    the LP did not finish). The benchmark reports it to show how much branch and bound is left."""
    red = reduce(problem)
    if len(red.free) == 0:
        return _all_fixed(red).bound
    return _lp_bound(Master(red, *split(red)).solve_lp(time_limit))


def _all_fixed(red: Reduced) -> Outcome:
    """Every node pinned: the one placement, if it meets the limits."""
    ev = evaluate(red.problem, red.fixed_loc)
    return Outcome(red.fixed_loc, ev.objective) if ev.feasible(red.problem) else Outcome(None, math.inf)


def _lp_bound(lp: Solution) -> float:
    if lp.status == "Infeasible":
        return math.inf
    return lp.objective if lp.status == "Optimal" else -math.inf


def _by_menus(master: Master, lp: Solution, incumbent: Point, rel_gap: float,
              left: Callable[[], float]) -> tuple[Outcome | None, Point]:
    """Exact search over the components' menus (lagrange.py), then, if it does not prove the
    incumbent, HiGHS on the menus. Returns the outcome when proven, and the best placement found.
    Nothing is done when menus are not available (a component is neither small nor a tree)."""
    red = master.red
    lam = master.multipliers(lp)
    lag = lagrange.Lagrangian.build(red, lam)
    if lag is None:
        return None, incumbent
    free_loc = _free_loc(master, incumbent)
    best = incumbent.cost
    lb = max(lp.objective, lag.lb)

    def target() -> float:
        # a hair inside the tolerance, so that the proven bound passes `within` after rounding
        return best - (1 - 1e-6) * max(ABS_GAP, rel_gap * abs(best))

    def out_of_time() -> bool:
        return left() <= 0

    def point() -> Point:
        chosen = master.opts.locate(free_loc, red.unary_cost.shape[1])
        if np.any(chosen < 0):
            raise RuntimeError("menu search produced a placement that is not an option")
        return Moves(red, master.opts, master.large).point(chosen, free_loc[master.large.nodes])

    d_full = target() - lag.lb + _margin(best)
    menu = lag.menu(d_full)
    if menu is None:
        return None, incumbent
    # deepening: search below d, doubling d up to d_full (which shrinks as the incumbent improves)
    # until the search runs to the end at d_full (proof) or holds too many states
    d = d_full / _DEEPEN_FROM
    while left() > 0:
        d_full = target() - lag.lb + _margin(best)
        if d_full <= 0:
            return Outcome(red.full_placement(free_loc), max(lb, target())), point()
        d = min(d, d_full)
        if lagrange.combinations(menu, d) > _HOPELESS * _STATES:
            break
        found = lagrange.search(menu, red, lam, lag.lb, target(), d, _STATES, out_of_time)
        if found.status != "complete":
            break
        if found.chosen is not None and found.cost < best:
            menu.write(found.chosen, free_loc)
            best = found.cost
        if d >= d_full:
            # every placement cheaper than the target was examined (the target only got lower)
            return Outcome(red.full_placement(free_loc), max(lb, min(best, target()))), point()
        d *= _DEEPEN_STEP
    if left() <= 0:
        return None, point()
    # HiGHS on the menus: every placement cheaper than target() is a combination of entries.
    # The one-row DP bounds (rowdp.py) leave out the entries that cannot be in a combination
    # cheaper than a ceiling; the ceiling starts just above the DP bound and doubles its distance
    # to it until HiGHS finds a combination below it or it reaches target().
    d_full = target() - lag.lb + _margin(best)
    entries = np.flatnonzero(menu.rc < d_full)       # every component's cheapest entry has rc 0
    dp = rowdp.row_bounds(menu.comp[entries], menu.cost[entries], menu.w[entries], red.rhs, lam,
                          red.const, menu.n_comp, lagrange.TOL, out_of_time)
    if dp is None:
        return None, point()
    floor = min(max(dp.bound, lb), target())
    step = max(ABS_GAP, rel_gap * abs(best))
    ceiling = floor + step
    while True:
        ceiling = min(ceiling, target())
        keep = entries[dp.entry < ceiling + _margin(ceiling)]
        below = ceiling
        if np.all(np.bincount(menu.comp[keep], minlength=menu.n_comp) > 0):
            enough = floor + (1 - 1e-6) * max(ABS_GAP, rel_gap * abs(floor))
            mip = lagrange.mck_mip(menu, red, keep, rel_gap, ABS_GAP, left(), cutoff=ceiling,
                                   good_enough=enough)
            if mip.chosen is not None and mip.objective < best:
                menu.write(mip.chosen, free_loc)
                best = mip.objective
            if mip.status != "Infeasible":
                below = min(mip.bound, ceiling) if math.isfinite(mip.bound) else floor
        proven = max(lb, floor, min(below, target()))
        if within(best, proven, rel_gap) or ceiling >= target() or left() <= 0:
            return Outcome(red.full_placement(free_loc), proven), point()
        ceiling = floor + 2 * (ceiling - floor)


def _current(master: Master) -> list[tuple[np.ndarray, np.ndarray]]:
    """The current placement as a starting point of the heuristic, when every free node has one it may keep
    (a warm start: re-placement after a change of rates starts from the placement in force)."""
    red = master.red
    cur = red.problem.current[red.free]
    if np.any(cur < 0) or not np.all(red.problem.allowed[red.free, cur]):
        return []
    chosen = master.opts.locate(cur, red.unary_cost.shape[1])
    return [] if np.any(chosen < 0) else [(chosen, cur[master.large.nodes])]


def _feasible_current(master: Master) -> Point | None:
    """The current placement as a point, when every free node has one and it meets the limits."""
    starts = _current(master)
    if not starts:
        return None
    pt = Moves(master.red, master.opts, master.large).point(*starts[0])
    return pt if pt.feasible(master.red.rhs) else None


def _margin(scale: float) -> float:
    """Slack added to a reduced-cost threshold so that float rounding never drops a placement."""
    return 1e-9 * max(1.0, abs(scale))


def _free_loc(master: Master, pt: Point) -> np.ndarray:
    free_loc = np.zeros(len(master.red.free), dtype=np.int64)
    master.opts.write(pt.chosen, free_loc)
    free_loc[master.large.nodes] = pt.cloc
    return free_loc


def _rens(master: Master, lp: Solution, rel_gap: float, time_limit: float) -> Point | None:
    """RENS: the best placement that keeps every integral LP value, by a short MIP over the
    fractional columns; worth it when few are fractional (random graphs with a loose T: the
    heuristic's local moves miss the combined moves this finds)."""
    fractional = master.integer & (lp.value > _FIX_EPS) & (lp.value < 1.0 - _FIX_EPS)
    if not fractional.any() or fractional.sum() > _RENS_SHARE * master.integer.sum():
        return None
    keep = master.integer & ~fractional
    lower = np.where(keep, np.round(lp.value), 0.0)
    upper = np.where(keep, np.round(lp.value), 1.0)
    mip = master.solve_mip(lower, upper, None, rel_gap, ABS_GAP, time_limit)
    if not np.all(np.isfinite(mip.value)):
        return None
    found = _point(master, *master.decode(mip.value))
    return found if found.feasible(master.red.rhs) else None


def _fix(lp: Solution, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Bounds that fix every column whose reduced cost exceeds the gap at its LP value."""
    slack = gap + 1e-7 * max(1.0, abs(lp.objective))
    lower, upper = np.zeros(len(lp.value)), np.ones(len(lp.value))
    upper[(lp.value <= _FIX_EPS) & (lp.reduced_cost > slack)] = 0.0
    lower[(lp.value >= 1.0 - _FIX_EPS) & (lp.reduced_cost < -slack)] = 1.0
    return lower, upper


def _point(master: Master, chosen: np.ndarray, cloc: np.ndarray) -> Point:
    return Moves(master.red, master.opts, master.large).point(chosen, cloc)


def _outcome(master: Master, incumbent: Point | None, bound: float) -> Outcome:
    if incumbent is None:
        return Outcome(None, bound)
    return Outcome(master.red.full_placement(_free_loc(master, incumbent)), min(bound, incumbent.cost))
