"""The one-row DP bounds of the menus' knapsack (fast/rowdp.py) against enumeration."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from uno_solver.fast import rowdp


def _knapsack(rng: np.random.Generator, m: int, integer: bool):
    """A random knapsack: 2-5 components of 1-4 entries, m rows, limits that some combinations meet."""
    sizes = rng.integers(1, 5, size=rng.integers(2, 6))
    comp = np.repeat(np.arange(len(sizes)), sizes)
    cost = rng.uniform(-2, 10, size=len(comp))
    w = rng.integers(0, 9, size=(len(comp), m)).astype(float) if integer else rng.uniform(-1, 8, size=(len(comp), m))
    rhs = np.array([sum(w[comp == c, r].mean() for c in range(len(sizes))) for r in range(m)])  # about half fit
    return comp, cost, w, np.round(rhs) if integer else rhs, len(sizes)


def _enumerate(comp, cost, w, rhs, n_comp, tol):
    """Least cost of a combination meeting every row (inf: none), and of one using each entry."""
    groups = [np.flatnonzero(comp == c) for c in range(n_comp)]
    best, with_entry = np.inf, np.full(len(cost), np.inf)
    for combo in itertools.product(*groups):
        pick = list(combo)
        if np.all(w[pick].sum(axis=0) <= rhs + tol):
            total = cost[pick].sum()
            best = min(best, total)
            with_entry[pick] = np.minimum(with_entry[pick], total)
    return best, with_entry


@pytest.mark.parametrize("seed", range(200))
def test_bounds_never_exceed_what_enumeration_finds(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    monkeypatch.setattr(rowdp, "CELLS", int(rng.choice([2, 3, 7, 16, 4096])))   # coarse grids round most
    comp, cost, w, rhs, n_comp = _knapsack(rng, m=int(rng.integers(1, 4)), integer=False)
    lam = rng.choice([0.0, 0.0, 0.3], size=len(rhs))
    lam[rng.integers(len(rhs))] = 1.0            # a row to keep exact; the others priced (0: dropped)
    const = float(rng.uniform(-5, 5))
    best, with_entry = _enumerate(comp, cost, w, rhs, n_comp, tol=1e-7)
    found = rowdp.row_bounds(comp, cost, w, rhs, lam, const, n_comp, tol=1e-7)
    assert found.bound <= best + const + 1e-9
    assert np.all(found.entry <= with_entry + const + 1e-9)


@pytest.mark.parametrize("seed", range(100))
def test_one_integer_row_on_a_unit_grid_is_exact(monkeypatch, seed):
    # one row, integer uses, a grid of exactly one unit per cell: the DP is the knapsack itself
    rng = np.random.default_rng(1000 + seed)
    comp, cost, w, rhs, n_comp = _knapsack(rng, m=1, integer=True)
    least = sum(w[comp == c, 0].min() for c in range(n_comp))
    room = int(rhs[0] - least)
    if room <= 0:
        pytest.skip("no room above the least use")
    monkeypatch.setattr(rowdp, "CELLS", room)
    best, with_entry = _enumerate(comp, cost, w, rhs, n_comp, tol=0.0)
    found = rowdp.row_bounds(comp, cost, w, rhs, np.array([1.0]), 0.0, n_comp, tol=0.0)
    assert found.bound == pytest.approx(best)
    assert np.allclose(found.entry, with_entry, equal_nan=False)


def test_no_combination_fits_gives_infinite_bounds():
    comp = np.array([0, 0, 1])
    w = np.array([[5.0], [6.0], [4.0]])
    found = rowdp.row_bounds(comp, np.ones(3), w, np.array([8.0]), np.array([1.0]), 0.0, 2, tol=0.0)
    assert found.bound == np.inf and np.all(found.entry == np.inf)


def test_a_component_without_entries_is_refused():
    with pytest.raises(ValueError, match="every component"):
        rowdp.row_bounds(np.array([0, 2]), np.ones(2), np.ones((2, 1)), np.array([5.0]), np.array([1.0]),
                         0.0, 3, tol=0.0)


def test_asked_to_stop_it_returns_nothing():
    comp, cost, w, rhs, n_comp = _knapsack(np.random.default_rng(7), m=2, integer=False)
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 2

    assert rowdp.row_bounds(comp, cost, w, rhs, np.array([1.0, 1.0]), 0.0, n_comp, 1e-7, stop) is None
    assert len(asked) == 3
