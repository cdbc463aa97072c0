"""Shared helpers for the solver's unit tests."""
from __future__ import annotations

import copy
from typing import Any

import pytest

from uno_solver.graph import SCHEMA_ID


def base_doc() -> dict[str, Any]:
    """A small valid graph: vm -> fw -> dpi -> eth0, one sNIC, two resources."""
    return {
        "schema": SCHEMA_ID,
        "resources": ["cpu", "mem"],
        "snics": [{"id": "snic0", "pcie_gbps": 10.0, "capacity": {"cpu": 8.0, "mem": 4.0}}],
        "nodes": [
            {"id": "vm0", "kind": "vm", "needs": {"host": {"cpu": 2.0}}},
            {"id": "fw", "kind": "nf", "needs": {"host": {"mem": 1.0}, "snic": {"mem": 1.0}},
             "per_gbps": {"host": {"cpu": 0.5}, "snic": {"cpu": 1.0}}},
            {"id": "dpi", "kind": "nf", "per_gbps": {"host": {"cpu": 1.0}, "snic": {"cpu": 2.0}}},
            {"id": "eth0", "kind": "port"},
        ],
        "edges": [
            {"src": "vm0", "dst": "fw", "gbps": 2.0},
            {"src": "fw", "dst": "dpi", "gbps": 2.0},
            {"src": "dpi", "dst": "eth0", "gbps": 2.0},
            {"src": "eth0", "dst": "dpi", "gbps": 1.0},
        ],
    }


@pytest.fixture
def doc() -> dict[str, Any]:
    return copy.deepcopy(base_doc())


@pytest.fixture
def agrees_with_brute_force():
    """check(seed): the fast solver, exact, finds brute force's status and optimum on small_graph(seed),
    with a bound no higher than the optimum."""
    from uno_solver import solve
    from uno_solver.instances import small_graph

    def check(seed: int) -> None:
        graph = small_graph(seed)
        truth = solve(graph, "brute")
        got = solve(graph, "fast", gap=0.0)
        assert got.status == truth.status, seed
        if truth.placed:
            assert got.objective == pytest.approx(truth.objective, abs=2e-6), seed
            assert got.bound <= truth.objective + 2e-6, seed
    return check
