"""Issue 19: every lost packet is attributed to a place. A starved NF (stopped with SIGSTOP while traffic runs,
as a starved process would be) overflows its receive ring; the agent's /v2.1/uno/losses and the platform's
counters together explain each packet the receiver missed."""
from __future__ import annotations

import os
import signal
import time

import pytest
from test_agent import nf_pids
from test_migration import monitor_chain

from uno_agent.attribution import Accumulator, flatten
from uno_platform.traffic import NumberedUdp

pytestmark = pytest.mark.platform


def test_a_starved_nf_loses_packets_in_its_ring_and_every_one_is_attributed(uno_stack):
    stack = uno_stack(snic_cores=1.0, pcie_gbps=1.0, vms=0, wire_ports=1)
    _vm, mon, source, sink_ip = monitor_chain(stack)
    [pid] = nf_pids(stack, "monitor")
    counts = Accumulator()
    counts.add(flatten(stack.api("GET", "/v2.1/uno/losses")["losses"]), first=True)
    with NumberedUdp(source, stack.platform.description["ext"]["netns"], sink_ip, flows=100, pps=5000,
                     seconds=4) as run:
        time.sleep(1.0)
        os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(2.0)
        finally:
            os.kill(pid, signal.SIGCONT)
    counts.add(flatten(stack.api("GET", "/v2.1/uno/losses")["losses"]))
    counts.add({"receiver socket": run.result["socket_drops"], "sender refused": run.result["send_refused"]})
    assert run.lost > 1000, run.result["missing"]
    assert counts.increase.get("NF mon ring", 0) > 1000, counts.increase
    print(f"lost {run.lost}; counted {counts.increase}")
    assert sum(counts.increase.values()) == run.lost, (run.lost, counts.increase)
