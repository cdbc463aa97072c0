"""A physical bridge that reconnects gets its flow table made equal to the translation of the virtual
rules: here Open vSwitch empties the table when its controller is removed, and OneSwitch refills it
when the controller is set again."""
from __future__ import annotations

import re
import subprocess

import pytest
from oneswitch_stack import ofctl, switch_target, wait_for

pytestmark = pytest.mark.platform


def vsctl(platform, switch_id: str, *args: str) -> str:
    db = platform.switch(switch_id)["ovsdb"]
    return subprocess.run(["ovs-vsctl", f"--db={db}", *args], check=True, capture_output=True, text=True,
                          timeout=30).stdout.strip()


def rules(platform, switch_id: str) -> list[str]:
    """The bridge's flows without their counters and age (cookie, match and actions stay)."""
    lines = ofctl(switch_target(platform, switch_id), "dump-flows").stdout.splitlines()[1:]
    return sorted(re.sub(r" duration=[^,]*,| n_packets=\d+,| n_bytes=\d+,", "", line).strip() for line in lines)


def test_bridge_that_lost_its_flows_gets_them_back(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
    ofctl(stack.target, "add-flow", "priority=10,in_port=2,actions=mod_dl_src:02:00:00:00:00:99,output:1")
    ofctl(stack.target, "add-flow", "priority=0,actions=CONTROLLER:65535")
    expected = rules(stack.platform, "host")
    # The VM's rule and the table-miss rule run on the host (table 1), the wire port's rule on the sNIC.
    assert len([r for r in expected if "table=1," in r]) == 2, expected

    bridge = stack.platform.switch("host")["bridge"]
    target = vsctl(stack.platform, "host", "get-controller", bridge)
    vsctl(stack.platform, "host", "del-controller", bridge)
    wait_for(lambda: rules(stack.platform, "host") == [], 10, "Open vSwitch to drop the flows")
    vsctl(stack.platform, "host", "set-controller", bridge, target)
    wait_for(lambda: rules(stack.platform, "host") == expected, 30, "OneSwitch to reinstall the translation")
    assert len(ofctl(stack.target, "dump-flows").stdout.splitlines()) == 4, "the virtual rules did not change"
