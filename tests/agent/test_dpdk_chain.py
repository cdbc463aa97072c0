"""The whole stack on the DPDK datapath (issue 21): OneSwitch, the agent and migration unchanged; an NF on a
vhost-user port with the dpdk packet I/O provider. Skipped, with the reason, where DPDK cannot run."""
from __future__ import annotations

import time

import pytest
from test_agent import _cmdline, nf_pids
from test_migration import FLOWS, PPS, SPORT, lost_where, migrate_until_moved, monitor_chain

from uno_nfs import NfControl
from uno_platform import dpdk, hugepages
from uno_platform.traffic import NumberedUdp

NO_DPDK = dpdk.available() or hugepages.unavailable(dpdk.hugepages(2))
pytestmark = [pytest.mark.platform, pytest.mark.alone,   # hugepages are the machine's, and DPDK polls
              pytest.mark.skipif(bool(NO_DPDK), reason=f"no DPDK here: {NO_DPDK}")]


def test_a_chain_forwards_and_its_monitor_migrates_both_ways_losing_nothing(uno_stack):
    stack = uno_stack(datapath="dpdk", snic_cores=1.0, pcie_gbps=1.0, vms=0, wire_ports=1)
    vm, mon, source, sink_ip = monitor_chain(stack)
    [pid] = nf_pids(stack, "monitor")
    assert "--backend dpdk" in _cmdline(pid)

    sides, rollbacks = [], []
    with NumberedUdp(source, stack.platform.description["ext"]["netns"], sink_ip, flows=FLOWS, pps=PPS,
                     seconds=6, sport=SPORT) as run:
        time.sleep(1.0)
        for side in ("host", "snic0"):
            sides.append(migrate_until_moved(stack, mon, side, rollbacks)["OS-EXT-SRV-ATTR:hypervisor_hostname"])
            time.sleep(0.5)
    assert sides == ["host", "snic0"]
    result = run.result
    assert sum(result["sent"].values()) >= PPS * 5
    assert run.lost == 0, lost_where(stack, result)
    assert result["duplicates"] == 0 and result["reordered"] == 0
    # the loss accounting reads the DPDK ports' own drop counters (OpenFlow's are unknown for vhost-user)
    platform_losses = stack.api("GET", "/v2.1/uno/losses")["losses"]["platform"]
    assert all(sw["dpdk_ports"] == {} for sw in platform_losses["switches"].values()), platform_losses
    with NfControl(stack.control_socket(mon["id"])) as ctl:
        counted = {f["sport"]: f["packets"] for f in ctl.flows(match={"proto": "udp", "dport": 9999})}
    assert counted == {SPORT + int(flow): sent for flow, sent in result["sent"].items()}
