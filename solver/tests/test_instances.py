"""The realistic host generator: what it promises (size, tenants' chains, shared and pinned NFs, 1 and 2
sNICs, limits that bind), and, on its small hosts, the three solvers' agreement with brute force."""
from __future__ import annotations

import collections

import numpy as np
import pytest

from uno_solver import solve
from uno_solver.instances import realistic_graph
from uno_solver.problem import compile_graph, evaluate

TOL = 2e-6


def test_realistic_hosts_have_the_promised_shape():
    graphs = [realistic_graph(n, seed, tight) for n in (100, 500) for seed in range(6) for tight in (True, False)]
    assert {len(g.snics) for g in graphs} == {1, 2}
    for g in graphs:
        kinds = collections.Counter(node.kind for node in g.nodes)
        assert len(g.nodes) in (100, 500) and kinds["port"] == len(g.snics)
        assert 20 <= kinds["vm"] <= len(g.nodes) // 2
        assert g.resources == ("cpu", "mem")
        for snic in g.snics:
            assert snic.pcie_gbps > 0 and snic.capacity["cpu"] > 0 and snic.capacity["mem"] > 0
    big = [g for g in graphs if len(g.nodes) == 500]
    # NFs shared by several tenants: an NF with more than one VM-facing or chain neighbour on each side
    assert all(max(collections.Counter(e.dst for e in g.edges if e.dst.startswith("nf")).values()) > 2 for g in big)
    assert all(any(node.kind == "nf" and node.pin is not None for node in g.nodes) for g in big)
    rates = np.array([e.gbps for g in big for e in g.edges])
    assert rates.max() > 20 * np.median(rates), "log-normal: a few chains carry far more than the median"


def test_the_tight_limit_binds():
    """With every free NF on an sNIC, a tight host exceeds that sNIC's PCIe limit or its capacity."""
    for seed in range(4):
        problem = compile_graph(realistic_graph(100, seed, tight=True))
        free = problem.allowed.all(axis=1)
        for s in range(problem.k):
            loc = np.where(free, s + 1, np.argmax(problem.allowed, axis=1))
            ev = evaluate(problem, loc)
            assert ev.pcie[s] > problem.pcie_limit[s] or (ev.snic[s] > problem.capacity[s]).any()


@pytest.mark.parametrize("seed", range(60))
def test_small_realistic_hosts_agree_with_brute_force(seed):
    graph = realistic_graph(5 + seed % 8, seed, tight=bool(seed % 2))
    truth = solve(graph, "brute")
    fast = solve(graph, "fast", gap=0.0)
    ref = solve(graph, "ilp", gap=0.0)
    assert fast.status == ref.status == truth.status
    if truth.status == "optimal":
        assert fast.objective == pytest.approx(truth.objective, abs=TOL)
        assert ref.objective == pytest.approx(truth.objective, abs=TOL)
        assert fast.bound <= truth.objective + TOL
    else:
        assert fast.explanation and fast.explanation == ref.explanation == truth.explanation


def test_small_realistic_hosts_are_mostly_feasible():
    statuses = collections.Counter(solve(realistic_graph(5 + seed % 8, seed, tight=bool(seed % 2)), "brute").status
                                   for seed in range(60))
    assert statuses["optimal"] >= 54, statuses
