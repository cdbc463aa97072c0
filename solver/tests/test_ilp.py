"""The reference model: Algorithm 1 as written in the paper, and honest statuses from CBC."""
from __future__ import annotations

import math

import pulp
import pytest

from uno_solver import Graph, solve
from uno_solver.ilp import _cbc_bound, build
from uno_solver.instances import fig16_graph, random_graph
from uno_solver.problem import compile_graph


def test_one_snic_one_resource_is_algorithm_1():
    graph = fig16_graph(40.0)
    p = compile_graph(graph)
    model, at = build(p)
    names = {v.name for v in model.variables()}
    assert names == {f"p_{i}" for i in range(p.n)} | {f"d_{e}_0" for e in range(len(p.edge_u))}
    assert all(v.cat == pulp.LpInteger and v.lowBound == 0 and v.upBound == 1 for v in model.variables())
    # objective: sum_i h_i p_i
    assert {v.name: c for v, c in model.objective.items()} == {
        f"p_{i}": pytest.approx(p.loc_cost[i, 0]) for i in range(p.n) if p.loc_cost[i, 0]}
    # PCIe: sum t_ij d_ij <= T;  capacity: sum n_i (1 - p_i) <= D
    pcie = model.get_constraint_by_name("pcie_0")
    assert {v.name: c for v, c in pcie.items()} == {f"d_{e}_0": pytest.approx(g) for e, g in enumerate(p.edge_gbps)}
    assert -pcie.constant == 40.0
    cap = model.get_constraint_by_name("capacity_0_0")
    assert {v.name: c for v, c in cap.items()} == {f"p_{i}": pytest.approx(-p.snic_need[i, 0, 0])
                                                     for i in range(p.n) if p.snic_need[i, 0, 0]}
    # d_ij >= p_i - p_j and d_ij >= p_j - p_i for every edge; VMs on the host, ports on the sNIC
    cuts = [c for c in model.constraints() if c.name.startswith("cut_")]
    assert len(cuts) == 2 * len(p.edge_u)
    pins = {c.name for c in model.constraints() if c.name.startswith("pin_")}
    assert pins == {f"pin_{i}_1" for i, n in enumerate(graph.nodes) if n.kind == "vm"} | \
                   {f"pin_{i}_0" for i, n in enumerate(graph.nodes) if n.kind == "port"}


CBC_STOPPED = """
Result - Stopped on time limit

Objective value:                935.81732809
Lower bound:                    809.881
Gap:                            0.16
Enumerated nodes:               545
"""


def test_cbc_bound_read_from_the_log_and_shifted_by_the_objective_constant():
    model = pulp.LpProblem("m", pulp.LpMinimize)
    x = model.add_variable("x", 0, 1000)
    model += x + 10.0
    x.varValue = 935.81732809
    model.assignStatus(pulp.LpStatusOptimal, pulp.LpSolutionIntegerFeasible)
    assert _cbc_bound(CBC_STOPPED, model, proven=False) == pytest.approx(819.881)
    assert _cbc_bound("Result - Stopped on time limit\n", model, proven=False) == -math.inf


def test_time_limit_is_not_reported_as_optimal():
    # PuLP's LpStatus says "Optimal" when CBC stops on its time limit with an incumbent.
    graph = random_graph(2000, 0, tight=True)
    result = solve(graph, "ilp", time_limit=1.0)
    assert result.status in ("feasible", "unknown")
    if result.status == "feasible":
        assert result.bound < result.objective and result.gap > 1e-4


def test_highs_backend_agrees(doc):
    graph = Graph.from_dict(doc)
    assert solve(graph, "ilp", backend="highs").objective == pytest.approx(solve(graph, "brute").objective)


def test_unknown_backend_is_rejected(doc):
    with pytest.raises(ValueError, match="unknown ILP backend 'gurobi'"):
        solve(Graph.from_dict(doc), "ilp", backend="gurobi")
