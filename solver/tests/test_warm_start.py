"""The current placement as a start of the fast solver's heuristic (a warm start for re-placement)."""
from __future__ import annotations

import math

import numpy as np

from uno_solver import Graph, cli, solve
from uno_solver.fast.blocks import split
from uno_solver.fast.decompose import reduce
from uno_solver.fast.heuristic import Moves
from uno_solver.fast.model import Master, Solution
from uno_solver.fast.solver import _current
from uno_solver.instances import realistic_graph
from uno_solver.problem import compile_graph, evaluate


def _master(doc: dict) -> Master:
    red = reduce(compile_graph(Graph.from_dict(doc)))
    return Master(red, *split(red))


def test_the_current_placement_starts_the_heuristic_at_its_own_cost():
    graph = realistic_graph(40, 3, False)   # two sNICs
    placed = solve(graph).location
    doc = graph.to_dict()
    for node in doc["nodes"]:
        if "pin" not in node:
            node["current"] = placed[node["id"]]
    master = _master(doc)
    (chosen, cloc), = _current(master)
    point = Moves(master.red, master.opts, master.large).point(chosen, cloc)
    problem = master.red.problem
    assert point.feasible(master.red.rhs)
    full = master.red.full_placement(problem.current[master.red.free])
    assert abs(point.cost - evaluate(problem, full).objective) < 1e-9
    # and the solve from there ends at the same optimum
    again = solve(Graph.from_dict(doc))
    assert again.status == "optimal" and abs(again.objective - evaluate(problem, full).objective) < 1e-6


def test_without_a_current_location_for_every_free_node_there_is_no_warm_start():
    doc = realistic_graph(60, 3, True).to_dict()
    free = [node for node in doc["nodes"] if "pin" not in node]
    for node in free[1:]:
        node["current"] = "host"
    assert _current(_master(doc)) == []


def test_a_limit_that_stops_the_lp_still_returns_the_placement_in_force_without_a_bound(monkeypatch):
    graph = realistic_graph(40, 3, False)
    doc = graph.to_dict()
    placed = solve(graph).location
    for node in doc["nodes"]:
        if "pin" not in node:
            node["current"] = placed[node["id"]]
    # HiGHS stopped by the limit before the LP's optimum (made certain here: a real limit races the LP)
    stopped = Solution("Time limit reached", math.inf, -math.inf, np.zeros(0), np.zeros(0), np.zeros(0))
    monkeypatch.setattr(Master, "solve_lp", lambda self, time_limit: stopped)
    assert solve(graph, time_limit=1.0).status == "unknown"   # cold: nothing to return
    warm = solve(Graph.from_dict(doc), time_limit=1.0)
    assert warm.status == "feasible" and warm.location == placed
    assert warm.bound is None and warm.gap is None and warm.to_dict()["gap"] is None
    assert "no bound" in cli._summary(warm)
