"""The virtual switch's LOCAL port is the host bridge's, as one bridge's LOCAL port is its own interface on the
host: a controller's rules deliver to the host's network stack through it and take the stack's packets into the
pipeline, here across the PCIe link to the sNIC's wire port and back."""
from __future__ import annotations

import ipaddress
import re
import subprocess
import time

import pytest
from oneswitch_stack import ofctl, revalidate

from uno_platform.traffic import ping

pytestmark = pytest.mark.platform


def test_the_host_bridges_interface_reaches_the_wire_through_local(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    host = stack.platform.switch("host")
    ext = stack.platform.description["ext"]["interfaces"][0]
    assert ext["switch"] != "host", "the wire port is on the sNIC: LOCAL's packets cross the link"
    ext_ip = ipaddress.ip_interface(ext["ip"])
    used = {ext_ip.ip} | {ipaddress.ip_interface(vm["ip"]).ip for vm in stack.platform.description["vms"]}
    local_ip = f"{next(a for a in reversed(list(ext_ip.network.hosts())) if a not in used)}/{ext_ip.network.prefixlen}"
    for cmd in (["addr", "add", local_ip, "dev", host["bridge"]], ["link", "set", host["bridge"], "up"]):
        subprocess.run(["ip", "-n", host["netns"], *cmd], check=True, capture_output=True, timeout=30)

    ofctl(stack.target, "add-flow", "priority=10,in_port=LOCAL,actions=output:2")
    ofctl(stack.target, "add-flow", "priority=10,in_port=2,actions=output:LOCAL")
    revalidate(stack.platform)
    assert ping(host["netns"], str(ext_ip.ip), count=5)

    # The switches' datapaths report flow counters to their tables about once a second.
    deadline = time.monotonic() + 5
    while len(re.findall(r"n_packets=[1-9]", entries := ofctl(stack.target, "dump-flows").stdout)) < 2:
        assert time.monotonic() < deadline, f"both rules count the ping's packets: {entries}"
        time.sleep(0.2)
