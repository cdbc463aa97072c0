"""Fast failover across switches, on real bridges: a host group's bucket watching the sNIC's wire port follows
that port's link, which the host bridge cannot see. When the wire loses its link, OneSwitch rewrites the host's
group from the sNIC's PORT_STATUS and the host's packets take the next bucket; when the link comes back, the
first again. Traced with ofproto/trace on the host bridge (the datapath follows the same group)."""
from __future__ import annotations

import subprocess

import pytest
from oneswitch_stack import ofctl, revalidate, wait_for
from uno_oneswitch.appctl import Appctl

pytestmark = pytest.mark.platform


def host_actions(platform, vm: dict) -> str:
    """The datapath actions the host bridge takes for a frame from the VM."""
    sw = platform.switch("host")
    port = next(p for p in sw["ports"] if p["name"] == vm["port"])
    with Appctl(sw["appctl"]) as a:
        trace = a.call("ofproto/trace", sw["bridge"], f"in_port={port['ofport']},dl_dst=02:00:00:00:00:99")
    return trace.split("Datapath actions:")[-1].strip()


def test_a_bucket_watching_a_port_on_the_snic_follows_its_link(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    ext = stack.platform.description["ext"]
    vm = stack.platform.description["vms"][0]
    # Virtual port 1 is the VM (host), 2 the wire (snic0): send to the wire while it is live, else back out.
    ofctl(stack.target, "add-group", "group_id=1,type=ff,bucket=watch_port:2,actions=output:2,"
          "bucket=watch_port:1,actions=output:IN_PORT")
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=group:1")
    revalidate(stack.platform)
    assert "add_mpls" in host_actions(stack.platform, vm), "live: over the PCIe link, with the wire's flow id"

    link = ["ip", "-n", ext["netns"], "link", "set", ext["interfaces"][0]["ifname"]]
    subprocess.run([*link, "down"], check=True)
    try:
        down = wait_for(lambda: (a := host_actions(stack.platform, vm)) and "add_mpls" not in a and a, 10,
                        "the host's group to follow the wire's link")
        assert down != "drop", "the second bucket: back out of the VM's port"
    finally:
        subprocess.run([*link, "up"], check=True)
    wait_for(lambda: "add_mpls" in host_actions(stack.platform, vm), 10, "the first bucket again")
