"""Menus of cheap placements (fast/lagrange.py): the tree listing, the search and HiGHS on the menus,
each against enumeration or brute force."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from uno_solver import solve
from uno_solver.fast import lagrange
from uno_solver.fast import solver as fast
from uno_solver.fast.blocks import split
from uno_solver.fast.decompose import reduce
from uno_solver.fast.model import Master
from uno_solver.instances import chain_graph, small_graph
from uno_solver.problem import compile_graph


def _lagrangian(seed: int) -> lagrange.Lagrangian | None:
    red = reduce(compile_graph(small_graph(seed)))
    if not len(red.free):
        return None
    opts, large = split(red)
    master = Master(red, opts, large)
    lp = master.solve_lp(10.0)
    if lp.status != "Optimal":
        return None
    return lagrange.Lagrangian.build(red, master.multipliers(lp))


def test_tree_menus_list_exactly_the_placements_below_the_threshold(monkeypatch):
    # about a third of these small graphs have a tree component; all of those are checked
    monkeypatch.setattr(lagrange, "FULL_ENUM", 1)          # every tree goes through the DP
    checked = 0
    for seed in range(0, 900, 3):
        lag = _lagrangian(seed)
        if lag is not None:
            checked += _check_tree_menus(lag, seed)
    assert checked >= 100


def _check_tree_menus(lag: lagrange.Lagrangian, seed: int) -> int:
    """Compares each tree's menus with enumeration; returns how many trees it compared."""
    red, n_loc = lag.red, lag.red.unary_cost.shape[1]
    checked = 0
    for tree in lag.trees:
        if n_loc ** len(tree.nodes) > 20000:
            continue
        every = np.array(list(itertools.product(range(n_loc), repeat=len(tree.nodes))))
        allowed = np.all(np.isfinite(red.unary_cost[tree.nodes[None, :], every]), axis=1)
        cost, w = tree._use(every[allowed])
        val = cost + w @ lag.lam
        assert tree.low == pytest.approx(val.min(), abs=1e-9), seed
        rc = val - tree.low
        for d in (1e-9, np.quantile(rc, 0.1) + 1e-9, np.quantile(rc, 0.5) + 1e-9, rc.max() + 1):
            listed = tree.menu(d, cap=10 ** 6)
            want = {tuple(p) for p in every[allowed][rc < d - 1e-9]}
            got = {tuple(p) for p in listed[3]}
            assert want <= got and got <= {tuple(p) for p in every[allowed][rc < d + 1e-9]}, seed
            assert np.all(listed[2] < d), seed
        checked += 1
    return checked


def test_a_tree_menu_past_its_cap_is_refused():
    red = reduce(compile_graph(chain_graph(300, 1, tight=True)))
    lam = np.zeros(red.m)
    big = np.bincount(red.label).argmax()
    tree = lagrange._Tree(red, lam, np.flatnonzero(red.label == big))
    assert tree.menu(1e9, cap=5) is None


@pytest.mark.parametrize("seed", range(1, 600, 4))
def test_menu_search_with_trees_finds_the_optimum(monkeypatch, seed, agrees_with_brute_force):
    monkeypatch.setattr(lagrange, "FULL_ENUM", 1)
    agrees_with_brute_force(seed)


@pytest.mark.parametrize("seed", range(2, 600, 4))
def test_highs_on_the_menus_finds_the_optimum(monkeypatch, seed, agrees_with_brute_force):
    monkeypatch.setattr(fast, "_STATES", 0)                 # the search always gives up
    monkeypatch.setattr(lagrange, "FULL_ENUM", 16)
    agrees_with_brute_force(seed)


def test_combinations_bounds_the_states():
    checked = 0
    for seed in range(0, 120, 7):
        lag = _lagrangian(seed)
        if lag is None:         # nothing free, or no LP optimum: no menus
            continue
        menu = lag.menu(np.inf)
        for d in (0.05, 0.5, 5.0):
            keep = menu.rc < d
            per_comp = [menu.rc[keep & (menu.comp == c)] for c in range(menu.n_comp)]
            if np.prod([max(len(p), 1) for p in per_comp], dtype=float) > 1e5:
                continue
            exact = sum(1 for combo in itertools.product(*per_comp) if sum(combo) < d)
            assert lagrange.combinations(menu, d) >= exact, seed
            checked += 1
    assert checked >= 20


def test_chain_graph_is_proven_by_the_menu_search():
    graph = chain_graph(120, 4, tight=False)
    result = solve(graph, "fast", gap=1e-4)
    exact = solve(graph, "ilp", gap=0.0)
    assert result.status == "optimal"
    assert result.objective <= exact.objective * (1 + 1e-4) + 1e-6
    assert result.bound <= exact.objective + 1e-6
