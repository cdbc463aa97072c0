"""Compiling a graph into arrays, and evaluating placements, checked by hand."""
from __future__ import annotations

import numpy as np
import pytest

from uno_solver import Graph
from uno_solver.problem import compile_graph, evaluate


def test_needs_follow_the_incoming_traffic(doc):
    p = compile_graph(Graph.from_dict(doc))
    fw, dpi = p.node_ids.index("fw"), p.node_ids.index("dpi")
    # fw receives 2 Gbps (vm0); dpi 2 (fw) + 1 (eth0): paper's h_i = r_host * traffic.
    assert p.host_need[fw].tolist() == [1.0, 1.0]
    assert p.host_need[dpi].tolist() == [3.0, 0.0]
    assert p.snic_need[fw, 0].tolist() == [2.0, 1.0]
    assert p.snic_need[dpi, 0].tolist() == [6.0, 0.0]
    assert p.loc_cost[fw].tolist() == [2.0, 0.0]        # weights 1 per resource, nothing on the sNIC


def test_explicit_traffic_overrides_the_edges(doc):
    doc["nodes"][2]["gbps"] = 10.0
    p = compile_graph(Graph.from_dict(doc))
    assert p.host_need[p.node_ids.index("dpi"), 0] == 10.0


def test_edges_in_both_directions_are_merged(doc):
    doc["objective"] = {"pcie_gbps": 0.5, "pcie_crossing": 2.0}
    p = compile_graph(Graph.from_dict(doc))
    pairs = {(p.node_ids[u], p.node_ids[v]): (g, c) for u, v, g, c in
             zip(p.edge_u, p.edge_v, p.edge_gbps, p.edge_cost, strict=False)}
    assert pairs[("dpi", "eth0")] == (3.0, 0.5 * 3.0 + 2.0 * 2)   # two directed edges
    assert pairs[("vm0", "fw")] == (2.0, 0.5 * 2.0 + 2.0)


@pytest.mark.parametrize("fw,dpi,pcie,objective,cpu", [
    ("host", "host", 3.0, 7.0, 0.0),
    ("host", "snic0", 2.0, 4.0, 6.0),
    ("snic0", "snic0", 2.0, 2.0, 8.0),
    ("snic0", "host", 2.0 + 2.0 + 3.0, 5.0, 2.0),
])
def test_evaluate_by_hand(doc, fw, dpi, pcie, objective, cpu):
    p = compile_graph(Graph.from_dict(doc))
    where = {"vm0": "host", "eth0": "snic0", "fw": fw, "dpi": dpi}
    ev = evaluate(p, np.array([p.locations.index(where[n]) for n in p.node_ids]))
    assert ev.pcie.tolist() == [pcie]
    assert ev.objective == objective
    assert ev.snic[0, 0] == cpu


def test_traffic_between_two_snics_crosses_both_links(doc):
    doc["snics"].append({"id": "snic1", "pcie_gbps": 5.0, "capacity": {"cpu": 8.0, "mem": 4.0}})
    doc["nodes"][3]["pin"] = "snic1"
    p = compile_graph(Graph.from_dict(doc))
    loc = {"vm0": 0, "fw": 0, "dpi": 1, "eth0": 2}
    ev = evaluate(p, np.array([loc[n] for n in p.node_ids]))
    assert ev.pcie.tolist() == [2.0 + 3.0, 3.0]            # fw->dpi on link 0; dpi<->eth0 on both
    assert ev.violations(p) == []
    loc["fw"] = 2          # vm0-fw on link 1; fw-dpi and dpi-eth0 between the sNICs: both links
    ev = evaluate(p, np.array([loc[n] for n in p.node_ids]))
    assert ev.pcie.tolist() == [2.0 + 3.0, 2.0 + 2.0 + 3.0]
    assert ev.violations(p) == ["snic1.pcie_gbps: 7 > 5"]


def test_acceleration_lowers_needs_only_where_offered(doc):
    doc["snics"] = [{"id": "snic0", "pcie_gbps": 10, "capacity": {"cpu": 8, "mem": 4}, "accel": ["crypto"]},
                    {"id": "snic1", "pcie_gbps": 10, "capacity": {"cpu": 8, "mem": 4}}]
    doc["nodes"][3]["pin"] = "snic0"
    doc["nodes"][2].update(accel="crypto", per_gbps={"host": {"cpu": 1.0}, "snic": {"cpu": 2.0},
                                                     "snic_accel": {"cpu": 0.1}})
    p = compile_graph(Graph.from_dict(doc))
    dpi = p.node_ids.index("dpi")
    assert p.snic_need[dpi, :, 0].tolist() == pytest.approx([0.3, 6.0])
    assert p.allowed[dpi].tolist() == [True, True, True]
    doc["options"] = {"pin_accelerated": True}                 # the paper's rule
    p = compile_graph(Graph.from_dict(doc))
    assert p.allowed[dpi].tolist() == [False, True, False]


def test_pins_and_migration_cost(doc):
    doc["objective"] = {"migration": 1.5}
    doc["nodes"][1].update(current="snic0")
    doc["nodes"][2].update(current="host", migration_cost=4.0, pin="host")
    p = compile_graph(Graph.from_dict(doc))
    fw, dpi = p.node_ids.index("fw"), p.node_ids.index("dpi")
    assert p.loc_cost[fw].tolist() == [2.0 + 1.5, 0.0]
    assert p.loc_cost[dpi].tolist() == [3.0, 4.0]
    assert p.allowed[dpi].tolist() == [True, False]
    assert p.current[fw] == 1 and p.current[p.node_ids.index("vm0")] == -1
