"""Infeasible problems come back as results with a reason naming the limit, never as exceptions."""
from __future__ import annotations

import pytest

from uno_solver import Graph, solve
from uno_solver.explain import min_link_load
from uno_solver.problem import compile_graph


@pytest.mark.parametrize("method", ["fast", "ilp", "brute"])
def test_pinned_nodes_over_capacity(doc, method):
    doc["nodes"][2]["pin"] = "snic0"                       # dpi needs 6 sNIC cores
    doc["snics"][0]["capacity"]["cpu"] = 5.0
    result = solve(Graph.from_dict(doc), method)
    assert result.status == "infeasible" and not result.placed and result.location == {}
    assert result.explanation.startswith("snic0.capacity.cpu: the nodes pinned to snic0 (dpi) need 6")
    assert "capacity 5" in result.explanation


@pytest.mark.parametrize("method", ["fast", "ilp", "brute"])
def test_minimum_cut_over_the_pcie_limit(doc, method):
    # vm0 (host) and eth0 (sNIC) exchange traffic through fw and dpi: at least the smallest cut
    # of the chain (2 Gbps) crosses PCIe wherever fw and dpi run.
    doc["snics"][0]["pcie_gbps"] = 1.5
    result = solve(Graph.from_dict(doc), method)
    assert result.status == "infeasible"
    assert result.explanation.startswith("snic0.pcie_gbps: whatever the placement, at least 2 Gbps cross")
    assert "limit 1.5" in result.explanation


def test_limits_that_only_conflict_together(doc):
    # T = 2 forces fw and dpi to the same side as one of the pins (cut vm0-fw or fw-dpi), and
    # the sNIC has room for neither dpi (6 cores) nor, with mem 0.5, fw: each limit alone is fine.
    doc["snics"][0].update(pcie_gbps=2.0, capacity={"cpu": 5.0, "mem": 0.5})
    result = solve(Graph.from_dict(doc), "fast")
    assert result.status == "infeasible"
    assert result.explanation.startswith("each limit can be met on its own, but no placement meets all")


def test_min_link_load_is_the_minimum_cut(doc):
    p = compile_graph(Graph.from_dict(doc))
    assert min_link_load(p, 0) == pytest.approx(2.0)      # cut vm0-fw or fw-dpi (2), not dpi-eth0 (3)
    doc["nodes"][1]["pin"] = "snic0"
    doc["nodes"][2]["pin"] = "host"
    p = compile_graph(Graph.from_dict(doc))
    assert min_link_load(p, 0) == pytest.approx(2.0 + 2.0 + 3.0)
