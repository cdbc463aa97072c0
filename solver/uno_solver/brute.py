"""Brute-force oracle: try every placement of the free nodes, in vectorised batches.

Independent of the other solvers (it evaluates placements with its own batched arithmetic, not
with `problem.evaluate`), so the tests can hold the ILP and the fast solver against it.
"""
from __future__ import annotations

import math

import numpy as np

from .outcome import Outcome
from .problem import FEAS_TOL, Problem

MAX_PLACEMENTS = 1 << 22
_BATCH = 1 << 15


def solve(problem: Problem) -> Outcome:
    """The optimum over all placements (ties go to the first in enumeration order)."""
    choices = [np.flatnonzero(row) for row in problem.allowed]
    radix = np.array([len(c) for c in choices], dtype=np.int64)
    total = math.prod(int(r) for r in radix)
    if total > MAX_PLACEMENTS:
        raise ValueError(f"brute force: {total} placements exceed the limit of {MAX_PLACEMENTS}")
    table = np.zeros((problem.n, int(radix.max(initial=1))), dtype=np.int64)
    for i, c in enumerate(choices):
        table[i, :len(c)] = c
    place_value = np.cumprod(np.r_[1, radix[:-1]])

    best_cost, best_loc = math.inf, None
    for first in range(0, total, _BATCH):
        index = np.arange(first, min(first + _BATCH, total))
        digits = (index[:, None] // place_value[None, :]) % radix[None, :]
        loc = table[np.arange(problem.n)[None, :], digits]                       # (B, N)
        cost, ok = _batch(problem, loc)
        cost = np.where(ok, cost, np.inf)
        j = int(np.argmin(cost)) if len(cost) else 0
        if len(cost) and cost[j] < best_cost:
            best_cost, best_loc = float(cost[j]), loc[j]
    if best_loc is None:
        return Outcome(None, math.inf)
    return Outcome(best_loc, best_cost)


def _batch(problem: Problem, loc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Objective and feasibility of each row of placements (B, N)."""
    cost = problem.loc_cost[np.arange(problem.n)[None, :], loc].sum(axis=1)
    ok = np.ones(len(loc), dtype=bool)
    for s in range(problem.k):
        on = (loc == s + 1).astype(float)
        ok &= np.all(on @ problem.snic_need[:, s, :] <= problem.capacity[s] + FEAS_TOL, axis=1)
        cross = np.abs(on[:, problem.edge_u] - on[:, problem.edge_v])               # (B, E)
        ok &= cross @ problem.edge_gbps <= problem.pcie_limit[s] + FEAS_TOL
        cost = cost + cross @ problem.edge_cost
    return cost, ok
