"""Placer decisions with the real solver: the threshold, and overloads that force a move."""
from __future__ import annotations

import dataclasses

from uno_agent import catalog
from uno_agent.inventory import Server
from uno_agent.placement import Placer

DESCRIPTION = {
    "switches": [{"id": "host", "role": "host", "cgroup": {"cores": None}},
                 {"id": "snic0", "role": "snic", "cgroup": {"cores": 0.5}}],
    "pcie_links": [{"snic": "snic0", "gbps": 1.0}],
}
WIRE = "port:snic0:w0p0"


def placer(threshold_cores: float) -> Placer:
    return Placer(DESCRIPTION, catalog.load(), threshold_cores=threshold_cores, dampening_s=0, host_cores=8)


def chain_on_snic(gbps: float):
    """wire -> l7fw -> VM, the firewall on the sNIC, carrying `gbps`."""
    vm = Server(id="vm", name="vm", flavor="vm.small", kind="vm", status="ACTIVE", created_at=0, side="host")
    fw = Server(id="fw", name="fw", flavor="l7fw", kind="nf", status="ACTIVE", created_at=0, side="snic0")
    return [vm, fw], {(WIRE, "fw"): gbps, ("fw", "vm"): gbps}


def test_a_move_that_costs_host_cpu_is_kept_back_while_the_snic_copes():
    servers, rates = chain_on_snic(0.001)
    decision = placer(0.05).reoptimize(servers, rates, now=100, trigger="test")
    assert decision.moves == {} and decision.servers["fw"] == "snic0"
    assert "overloaded" not in decision.detail


def test_an_overloaded_snic_moves_its_nf_even_though_the_host_pays_for_it():
    p = placer(0.05)
    flavor = p.flavors["l7fw"]
    gbps = 2 * 0.5 / flavor.snic.cpu_per_gbps      # twice what half an sNIC core can inspect
    servers, rates = chain_on_snic(gbps)
    decision = p.reoptimize(servers, rates, now=100, trigger="test")
    assert decision.moves == {"fw": "host"}, decision.detail
    assert decision.detail["host_cpu_saving"] < 0
    assert decision.detail["overloaded"] and decision.detail["overloaded"][0].startswith("snic0 CPU")


def test_an_infeasible_decision_says_why_in_the_demo_report():
    """Issue 19: the demo printed "infeasible" without the reason."""
    from uno_harness.demo import decision_text
    servers, rates = chain_on_snic(5.0)        # five times the PCIe link, and the firewall may not leave the sNIC
    servers[1].pin = "snic0"
    decision = placer(0.05).reoptimize(servers, rates, now=100, trigger="test")
    assert decision.status == "infeasible"
    text = decision_text(decision.to_json())
    assert text.startswith("infeasible: ") and len(text) > len("infeasible: ") + 10, text
    assert "gave no reason" not in text
    print(text)


def test_an_snic_that_runs_no_nfs_keeps_every_nf_on_the_host():
    """A Netronome sNIC (switching offload only): the solver's input pins each NF that can run on the host there,
    gives the sNIC no room, and an NF that could run on the sNIC only finds none."""
    netronome = {**DESCRIPTION, "switches": [DESCRIPTION["switches"][0],
                                             {**DESCRIPTION["switches"][1], "model": "netronome", "nf_capable": False}]}
    p = Placer(netronome, catalog.load(), threshold_cores=0.05, dampening_s=0, host_cores=8)
    servers, rates = chain_on_snic(0.001)
    servers[1] = dataclasses.replace(servers[1], side=None)
    graph = p.graph(servers, rates, {}, {"vm": "host"}, {"fw": None})
    assert {n["id"]: n.get("pin") for n in graph["nodes"] if n["kind"] == "nf"} == {"fw": "host"}
    assert graph["snics"] == [{"id": "snic0", "pcie_gbps": 1.0, "capacity": {"cpu": 0.0}}]
    decision = p.place_new(servers, servers[1], 0.001, rates, now=0)
    assert decision.servers["fw"] == "host"
    # on the BlueField-like description the same firewall is free to go to the sNIC
    free = placer(0.05).graph(servers, rates, {}, {"vm": "host"}, {"fw": None})
    assert [n.get("pin") for n in free["nodes"] if n["id"] == "fw"] == [None]
