"""Primal heuristic: from a rounded LP solution to a good feasible placement.

A placement of the reduced problem is one option per small component (`chosen`) plus a location
per large node (`cloc`). A move changes one of them. Repair applies the move that removes the most
violation per unit of cost until the side rows hold; improvement then applies improving feasible
moves, and pairs of moves (one that gains but does not fit, one that makes room) for the knapsack
fill. Every step is exact: costs and row uses are recomputed from the blocks.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..problem import FEAS_TOL
from .blocks import Large, Options
from .decompose import Reduced

_GAIN = 1e-9          # a move must gain at least this much to count as an improvement
# Stricter than the final check of a placement, so what the search accepts always passes it.
_TOL = FEAS_TOL / 2
_PAIR_CANDIDATES = 200


@dataclass(frozen=True, eq=False)
class Point:
    """A placement of the reduced problem with its cost (incl. the constant) and side-row use."""

    chosen: np.ndarray
    cloc: np.ndarray
    cost: float
    w: np.ndarray

    def feasible(self, rhs: np.ndarray) -> bool:
        return bool(np.all(self.w <= rhs + _TOL))


class Moves:
    """Every single move from a placement: option swaps (first n_opt) then large-node relocations."""

    def __init__(self, red: Reduced, opts: Options, large: Large) -> None:
        self.red, self.opts, self.large = red, opts, large
        self.k = red.cross.shape[2]
        self.n_loc = self.k + 1
        self.n_opt = len(opts.cost)

    def point(self, chosen: np.ndarray, cloc: np.ndarray) -> Point:
        opts, large, red = self.opts, self.large, self.red
        p = np.arange(len(cloc))
        c = red.cross[cloc[large.eu], cloc[large.ev]]                               # (E, k)
        cost = (red.const + opts.cost[chosen].sum() + large.unary_cost[p, cloc].sum()
                + large.cost @ c.sum(axis=1))
        w = opts.w[chosen].sum(axis=0) + large.unary_w[p, cloc].sum(axis=0)
        w[:self.k] += large.gbps @ c
        return Point(chosen, cloc, float(cost), w)

    def deltas(self, pt: Point) -> tuple[np.ndarray, np.ndarray]:
        """Cost change (M,) and row-use change (M, m) of every move; inf cost where not allowed."""
        opts, large, red = self.opts, self.large, self.red
        cur = pt.chosen[opts.comp]
        d_opt_cost = opts.cost - opts.cost[cur]
        d_opt_w = opts.w - opts.w[cur]
        p = np.arange(len(pt.cloc))
        d_cost = large.unary_cost - large.unary_cost[p, pt.cloc][:, None]
        d_w = large.unary_w - large.unary_w[p, pt.cloc][:, None, :]
        if len(large.eu):
            a, b = pt.cloc[large.eu], pt.cloc[large.ev]
            base = red.cross[a, b][:, None, :]                                      # (E, 1, k)
            for mine, new in ((large.eu, red.cross[:, b].transpose(1, 0, 2)),
                              (large.ev, red.cross[a, :])):
                diff = new - base                                                   # (E, L, k)
                np.add.at(d_w[:, :, :self.k], mine, large.gbps[:, None, None] * diff)
                np.add.at(d_cost, mine, large.cost[:, None] * diff.sum(axis=2))
        return (np.r_[d_opt_cost, d_cost.ravel()],
                np.concatenate([d_opt_w, d_w.reshape(-1, red.m)]))

    def owner(self, j: np.ndarray) -> np.ndarray:
        """What each move changes: its component (option moves) or n_comp + its node (large moves)."""
        comp = self.opts.comp[np.clip(j, 0, max(self.n_opt - 1, 0))] if self.n_opt else np.zeros(len(j), int)
        return np.where(j < self.n_opt, comp, self.opts.n_comp + (j - self.n_opt) // self.n_loc)

    def apply(self, pt: Point, j: int) -> Point:
        chosen, cloc = pt.chosen.copy(), pt.cloc.copy()
        if j < self.n_opt:
            chosen[self.opts.comp[j]] = j
        else:
            cloc[(j - self.n_opt) // self.n_loc] = (j - self.n_opt) % self.n_loc
        return self.point(chosen, cloc)


def search(red: Reduced, opts: Options, large: Large, starts: list[tuple[np.ndarray, np.ndarray]],
           out_of_time: Callable[[], bool]) -> Point:
    """Start from the best of `starts` (feasible and cheapest, else least over the limits), repair,
    then improve until no move helps or `out_of_time()`; the result may still be infeasible."""
    moves = Moves(red, opts, large)
    scale = np.maximum(np.abs(red.rhs), 1.0)
    points = [moves.point(chosen, cloc) for chosen, cloc in starts]
    pt = min(points, key=lambda q: (_violation(q.w, red.rhs, scale), q.cost))
    pt = _repair(moves, pt, out_of_time)
    if pt.feasible(red.rhs):
        pt = _improve(moves, pt, out_of_time)
    return pt


def _violation(w: np.ndarray, rhs: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return (np.maximum(w - rhs, 0.0) / scale).sum(axis=-1)


def _repair(moves: Moves, pt: Point, out_of_time: Callable[[], bool]) -> Point:
    rhs = moves.red.rhs
    scale = np.maximum(np.abs(rhs), 1.0)
    while not pt.feasible(rhs) and not out_of_time():
        d_cost, d_w = moves.deltas(pt)
        gain = _violation(pt.w, rhs, scale) - _violation(pt.w + d_w, rhs, scale)
        useful = (gain > 1e-12) & np.isfinite(d_cost)
        if not useful.any():
            return pt
        j = int(np.argmin(np.where(useful, d_cost / np.where(useful, gain, 1.0), np.inf)))
        pt = moves.apply(pt, j)
    return pt


def _improve(moves: Moves, pt: Point, out_of_time: Callable[[], bool]) -> Point:
    rhs = moves.red.rhs
    while not out_of_time():
        d_cost, d_w = moves.deltas(pt)
        fits = np.all(pt.w + d_w <= rhs + _TOL, axis=1)
        better = fits & (d_cost < -_GAIN)
        if better.any():
            pt = moves.apply(pt, int(np.argmin(np.where(better, d_cost, np.inf))))
            continue
        pair = _best_pair(moves, pt, d_cost, d_w, fits)
        if pair is None:
            return pt
        nxt = moves.apply(moves.apply(pt, pair[0]), pair[1])
        if not (nxt.feasible(rhs) and nxt.cost < pt.cost - _GAIN):
            return pt
        pt = nxt
    return pt


def _best_pair(moves: Moves, pt: Point, d_cost: np.ndarray, d_w: np.ndarray,
               fits: np.ndarray) -> tuple[int, int] | None:
    """The best pair (gainer that does not fit alone, move that makes room), by predicted cost."""
    rhs = moves.red.rhs
    gainers = np.flatnonzero(~fits & (d_cost < -_GAIN))
    helpers = np.flatnonzero(fits & np.isfinite(d_cost) & np.any(d_w < 0, axis=1))
    if not len(gainers) or not len(helpers):
        return None
    gainers = gainers[np.argsort(d_cost[gainers])[:_PAIR_CANDIDATES]]
    helpers = helpers[np.argsort(d_cost[helpers])[:_PAIR_CANDIDATES]]
    total = d_cost[gainers][:, None] + d_cost[helpers][None, :]
    fit = np.all(pt.w + d_w[gainers][:, None, :] + d_w[helpers][None, :, :] <= rhs + _TOL, axis=2)
    same = moves.owner(gainers)[:, None] == moves.owner(helpers)[None, :]
    total = np.where(fit & ~same, total, np.inf)
    g, h = np.unravel_index(int(np.argmin(total)), total.shape)
    if not total[g, h] < -_GAIN:
        return None
    return int(gainers[g]), int(helpers[h])
