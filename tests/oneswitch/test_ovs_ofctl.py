"""ovs-ofctl against OneSwitch's passive listener behaves as against one Open vSwitch bridge whose
ports are the virtual ports: the PCIe ports and physical numbers never show, rules and counters are
the virtual ones, and each command has the effect it has on a bridge."""
from __future__ import annotations

import re
import time

import pytest
from oneswitch_stack import ofctl, revalidate, switch_target

from uno_platform.traffic import ping

pytestmark = pytest.mark.platform


def flows(target: str, *filters: str) -> list[str]:
    lines = ofctl(target, "dump-flows", *filters).stdout.splitlines()[1:]
    return [re.sub(r"duration=[0-9.]+s, ", "", line.strip()) for line in lines]


def test_ovs_ofctl_sees_one_switch_with_the_virtual_ports(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    t = stack.target
    desc = stack.platform.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    ext_ip = ext["ip"].split("/")[0]

    show = ofctl(t, "show").stdout
    assert "dpid:0000554e4f000001" in show
    assert re.findall(r"^ (\d+)\((\S+)\):", show, re.M) == [("1", vm["port"]), ("2", ext["port"])]
    assert "ph0" not in show and "ps0" not in show, "PCIe ports are internal"
    ports_desc = ofctl(t, "dump-ports-desc").stdout
    assert re.findall(r"^ (\d+)\((\S+)\):", ports_desc, re.M) == [("1", vm["port"]), ("2", ext["port"])]

    # Two rules make a path VM <-> outside; the controller-visible numbers are 1 and 2.
    ofctl(t, "add-flow", "priority=100,in_port=1,actions=output:2")
    ofctl(t, "add-flow", "priority=100,in_port=2,actions=output:1")
    ofctl(t, "add-flow", "table=1,priority=5,ip,actions=drop")
    revalidate(stack.platform)
    assert ping(vm["netns"], ext_ip)
    time.sleep(1.5)
    dumped = flows(t)
    assert dumped[0].startswith("cookie=0x0, table=0, n_packets=") and dumped[0].endswith(
        "priority=100,in_port=1 actions=output:2")
    assert all(int(re.search(r"n_packets=(\d+)", f)[1]) > 0 for f in dumped[:2]), dumped
    assert dumped[2].endswith("table=1, n_packets=0, n_bytes=0, priority=5,ip actions=drop")
    assert flows(t, "table=1") == [dumped[2]]
    assert flows(t, "in_port=2") == [dumped[1]]

    aggregate = ofctl(t, "dump-aggregate").stdout
    packets = sum(int(re.search(r"n_packets=(\d+)", f)[1]) for f in dumped)
    assert f"packet_count={packets} " in aggregate and "flow_count=3" in aggregate

    ports = ofctl(t, "dump-ports").stdout
    assert re.findall(r"port +(\d+): rx pkts=(\d+)", ports) and "3 ports" in ports  # the two and LOCAL
    assert "port LOCAL: rx pkts=" in ports
    assert all(int(n) > 0 for _, n in re.findall(r"port +(\d+): rx pkts=(\d+)", ports))
    port2 = ofctl(t, "dump-ports", "2").stdout
    assert "port  2: rx pkts=" in port2 and "1 ports" in port2

    # Each bridge holds the translation: the VM's rule runs on the host (physical table 1) and sends the packet
    # to the sNIC with a flow id, an MPLS label that the sNIC's dispatch table (table 0) pops before the wire port.
    assert any("table=1," in f and "in_port=" in f and "actions=group:" in f
               for f in flows(switch_target(stack.platform, "host")))
    assert any("table=0," in f and "mpls_label=" in f and "actions=resubmit(,253),output:" in f
               for f in flows(switch_target(stack.platform, "snic0")))

    # mod-flows changes actions in place (counters kept), del-flows --strict removes one rule only.
    ofctl(t, "mod-flows", "in_port=1,actions=drop")
    assert flows(t, "in_port=1")[0].endswith("priority=100,in_port=1 actions=drop")
    ofctl(t, "del-flows", "priority=100,in_port=2", options=("--strict",))
    assert len(flows(t)) == 2
    revalidate(stack.platform)
    assert not ping(vm["netns"], ext_ip, count=1)

    # What a bridge refuses, OneSwitch refuses with the same OpenFlow error.
    group = ofctl(t, "add-flow", "priority=1,actions=group:1", check=False)
    assert group.returncode != 0 and "OFPBAC_BAD_OUT_GROUP" in group.stderr
    nicira = ofctl(t, "add-flow", "priority=1,in_port=1,actions=resubmit(,2)", check=False)
    assert nicira.returncode != 0 and "OFPBAC_BAD_VENDOR" in nicira.stderr
    assert len(flows(t)) == 2

    ofctl(t, "del-flows")
    assert flows(t) == []
    for sw in ("host", "snic0"):  # only OneSwitch's own tables (dispatch, clear, egress, pop) are left, no tag group
        left = flows(switch_target(stack.platform, sw))
        assert left and all(re.search(r"table=(0|251|252|253),", f) for f in left), f"{sw} still has rules: {left}"
        assert "group_id" not in ofctl(switch_target(stack.platform, sw), "dump-groups").stdout


def rx_packets(netns: str, ifname: str) -> int:
    from uno_platform.traffic import netns_run
    return int(netns_run(netns, ["cat", f"/sys/class/net/{ifname}/statistics/rx_packets"]).stdout)


def test_packet_out_leaves_from_the_right_physical_port(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    t = stack.target
    desc = stack.platform.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    frame = "ffffffffffff" + "020000000001" + "88b5" + "00" * 50  # local experimental ethertype, broadcast

    def sent_to_ext(*args: str) -> int:
        before = rx_packets(desc["ext"]["netns"], ext["ifname"])
        ofctl(t, "packet-out", *args)
        time.sleep(0.3)
        return rx_packets(desc["ext"]["netns"], ext["ifname"]) - before

    assert sent_to_ext("in_port=controller,packet=" + frame + ",actions=output:2") == 1, "to the sNIC's wire port"
    assert sent_to_ext("in_port=1,packet=" + frame + ",actions=flood") == 1, "FLOOD reaches every other port"
    assert sent_to_ext("in_port=2,packet=" + frame + ",actions=flood") == 0, "FLOOD never returns to in_port"
    assert sent_to_ext("in_port=1,packet=" + frame + ",actions=table") == 0, "TABLE with no rule drops"
    ofctl(t, "add-flow", "priority=5,in_port=1,actions=output:2")
    revalidate(stack.platform)
    assert sent_to_ext("in_port=1,packet=" + frame + ",actions=table") == 1, "TABLE runs the virtual rules"
    before_vm = rx_packets(vm["netns"], "eth0")
    ofctl(t, "packet-out", "in_port=controller,packet=" + frame + ",actions=output:1")
    time.sleep(0.3)
    assert rx_packets(vm["netns"], "eth0") - before_vm == 1, "to the VM's host port"
    ofctl(t, "add-group", "group_id=7,type=all,bucket=output:2")
    assert sent_to_ext("in_port=controller,packet=" + frame + ",actions=group:7") == 1, "a group alone"
    assert sent_to_ext("in_port=1,packet=" + frame + ",actions=group:7,output:2") == 2, \
        "the group once (on the host, across the link) and the output once: the sNIC's copy does not run the group"
