"""Acceptance: on 500 random small graphs (up to 16 nodes, 1-3 resources, pins, k = 1 and 2) the
reference ILP, the fast solver and brute force agree on feasibility and on the optimum."""
from __future__ import annotations

import pytest

from uno_solver import solve
from uno_solver.instances import small_graph

SEEDS = range(500)
TOL = 2e-6  # both ILP solvers stop within 1e-6 (absolute) of their bound


@pytest.mark.parametrize("seed", SEEDS)
def test_three_solvers_agree(seed):
    graph = small_graph(seed)
    truth = solve(graph, "brute")
    fast = solve(graph, "fast", gap=0.0)
    ref = solve(graph, "ilp", gap=0.0)
    assert truth.status in ("optimal", "infeasible")
    assert fast.status == ref.status == truth.status
    if truth.status == "optimal":
        assert fast.objective == pytest.approx(truth.objective, abs=TOL)
        assert ref.objective == pytest.approx(truth.objective, abs=TOL)
        assert fast.bound <= truth.objective + TOL and ref.bound <= truth.objective + TOL
    else:
        assert fast.explanation and fast.explanation == ref.explanation == truth.explanation


def test_the_sample_covers_the_features():
    """The 500 graphs really exercise k = 1 and 2, several resources, pins and infeasibility."""
    graphs = [small_graph(seed) for seed in SEEDS]
    assert {len(g.snics) for g in graphs} == {1, 2}
    assert {len(g.resources) for g in graphs} == {1, 2, 3}
    assert max(len(g.nodes) for g in graphs) == 16
    assert sum(any(n.pin is not None and n.kind == "nf" for n in g.nodes) for g in graphs) > 50
    assert sum(any(n.current is not None for n in g.nodes) for g in graphs) > 100
    statuses = [solve(g, "brute").status for g in graphs[:100]]
    assert 5 < statuses.count("infeasible") < 50

