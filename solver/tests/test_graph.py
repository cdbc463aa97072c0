"""Validation of placement graphs: every rejection names the offending field."""
from __future__ import annotations

import json

import pytest

from uno_solver import Graph, GraphError


def _set(doc, path, value):
    *head, last = path
    target = doc
    for key in head:
        target = target[key]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value


_DELETE = object()

BAD = [
    # (what is wrong, where, value, field named in the error, words in the reason)
    ("unknown node in an edge", ("edges", 1, "dst"), "ids", "edges[1].dst", "unknown node 'ids'"),
    ("negative rate", ("edges", 0, "gbps"), -1.0, "edges[0].gbps", ">= 0"),
    ("missing PCIe limit", ("snics", 0, "pcie_gbps"), _DELETE, "snics[0].pcie_gbps", "missing"),
    ("missing capacity of a resource", ("snics", 0, "capacity", "mem"), _DELETE, "snics[0].capacity.mem", "missing"),
    ("missing capacity", ("snics", 0, "capacity"), _DELETE, "snics[0].capacity", "missing"),
    ("negative capacity", ("snics", 0, "capacity", "cpu"), -2, "snics[0].capacity.cpu", ">= 0"),
    ("negative need", ("nodes", 1, "per_gbps", "host", "cpu"), -0.1, "nodes[1].per_gbps.host.cpu", ">= 0"),
    ("unknown resource in a need", ("nodes", 2, "needs"),
      {"host": {"gpu": 1}}, "nodes[2].needs.host.gpu", "unknown resource"),
    ("unknown resource in a capacity", ("snics", 0, "capacity", "disk"),
      1, "snics[0].capacity.disk", "unknown resource"),
    ("unknown field", ("nodes", 1, "colour"), "red", "nodes[1].colour", "unknown field"),
    ("unknown kind", ("nodes", 1, "kind"), "router", "nodes[1].kind", "one of nf, vm, port"),
    ("pin to an unknown sNIC", ("nodes", 1, "pin"), "snic7", "nodes[1].pin", "unknown location 'snic7'"),
    ("VM pinned to the sNIC", ("nodes", 0, "pin"), "snic0", "nodes[0].pin", "a VM runs on the host"),
    ("port pinned to the host", ("nodes", 3, "pin"), "host", "nodes[3].pin", "must name its sNIC"),
    ("current against pin", ("nodes", 0, "current"), "snic0", "nodes[0].current", "contradicts the pin"),
    ("duplicate node id", ("nodes", 2, "id"), "fw", "nodes[2].id", "duplicate id 'fw'"),
    ("self loop", ("edges", 0, "dst"), "vm0", "edges[0].dst", "same as src"),
    ("wrong schema", ("schema",), "uno-placement-graph/9", "schema", "must be"),
    ("no resources", ("resources",), [], "resources", "at least 1"),
    ("no sNIC", ("snics",), [], "snics", "at least 1"),
    ("snic id 'host'", ("snics", 0, "id"), "host", "snics[0].id", "reserved"),
    ("rate not a number", ("edges", 2, "gbps"), "fast", "edges[2].gbps", "type number"),
    ("infinite rate", ("edges", 2, "gbps"), float("inf"), "edges[2].gbps", "finite"),
    ("unknown objective weight", ("objective",),
      {"host_weights": {"gpu": 1}}, "objective.host_weights.gpu", "unknown resource"),
    ("accel needs without accel", ("nodes", 2, "needs"),
      {"snic_accel": {"cpu": 1}}, "nodes[2].needs.snic_accel", "names no accel"),
]


@pytest.mark.parametrize("what,path,value,field,reason", BAD, ids=[b[0] for b in BAD])
def test_rejects_malformed_graph_naming_the_field(doc, what, path, value, field, reason):
    _set(doc, path, value)
    with pytest.raises(GraphError) as err:
        Graph.from_dict(doc)
    assert err.value.field == field
    assert reason in err.value.reason
    assert str(err.value).startswith(f"{field}: ")


def test_validate_checks_without_building(doc):
    Graph.validate(doc)
    doc["edges"][0]["gbps"] = -3
    with pytest.raises(GraphError, match=r"^edges\[0\]\.gbps: must be >= 0, got -3$"):
        Graph.validate(doc)


def test_duplicate_edge_is_rejected(doc):
    doc["edges"].append(dict(doc["edges"][0], gbps=5.0))
    with pytest.raises(GraphError, match=r"^edges\[4\]: duplicate of edges\[0\] \(vm0 -> fw\)"):
        Graph.from_dict(doc)


def test_port_needs_its_snic_when_several(doc):
    doc["snics"].append({"id": "snic1", "pcie_gbps": 1, "capacity": {"cpu": 1, "mem": 1}})
    with pytest.raises(GraphError, match=r"nodes\[3\]\.pin: a port must name its sNIC \(have: snic0, snic1\)"):
        Graph.from_dict(doc)


def test_not_json():
    with pytest.raises(GraphError, match=r"^\$: not JSON"):
        Graph.from_json("{nodes: ")


def test_top_level_must_be_an_object():
    with pytest.raises(GraphError, match="type object"):
        Graph.from_json("[]")


def test_defaults_are_applied(doc):
    graph = Graph.from_dict(doc)
    assert graph.locations == ("host", "snic0")
    assert graph.objective.host_weights == {"cpu": 1.0, "mem": 1.0}
    assert graph.objective.migration == 0.0 and not graph.pin_accelerated
    nodes = {n.id: n for n in graph.nodes}
    assert nodes["vm0"].pin == "host"           # VMs run on the host
    assert nodes["eth0"].pin == "snic0"         # the only sNIC
    assert nodes["fw"].pin is None


def test_round_trip(doc):
    doc["nodes"][1].update(current="snic0", migration_cost=2.5, accel="crypto", gbps=3.0)
    doc["objective"] = {"migration": 1.0, "pcie_gbps": 0.1}
    graph = Graph.from_dict(doc)
    again = Graph.from_json(graph.to_json())
    assert again == graph
    assert json.loads(again.to_json()) == graph.to_dict()
