"""An unchanged OpenFlow 1.3 controller (os-ken, L2 learning) drives the host and sNIC switches through
OneSwitch: traffic between a VM and the outside flows, and the controller's rules are visible as one
switch's virtual rules with correct counters, and on the bridges as their translations."""
from __future__ import annotations

import re
import time

import pytest
from oneswitch_stack import ofctl, revalidate, switch_target, wait_for

from uno_platform.traffic import netns_run, ping, tcp_echo

pytestmark = pytest.mark.platform

# OneSwitch's tag group of tag t has id TAG_GROUP_BASE + t (translate/Layout.java).
TAG_GROUP_BASE = 0xffe30000

RULE = re.compile(r"n_packets=(\d+),.*priority=1,in_port=(\d+),dl_dst=([0-9a-f:]+) actions=output:(\d+)")


def learned_rules(target: str) -> dict[tuple[int, str], tuple[int, int]]:
    """(in_port, dl_dst) -> (out_port, n_packets) of the learning switch's rules."""
    out = {}
    for line in ofctl(target, "dump-flows").stdout.splitlines():
        m = RULE.search(line)
        if m:
            out[(int(m[2]), m[3])] = (int(m[4]), int(m[1]))
    return out


def pin_arp(netns: str, ip: str, mac: str) -> None:
    """A permanent neighbour entry, so that only the test's own packets use the rules being counted."""
    result = netns_run(netns, ["ip", "neigh", "replace", ip, "lladdr", mac, "dev", "eth0", "nud", "permanent"])
    assert result.returncode == 0, result.stderr


def test_vm_and_ext_talk_through_oneswitch_with_learned_virtual_rules(oneswitch_stack):
    stack = oneswitch_stack(controller=True, vms=1)
    desc = stack.platform.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    vm_ip, ext_ip = vm["ip"].split("/")[0], ext["ip"].split("/")[0]
    pin_arp(vm["netns"], ext_ip, ext["mac"])
    pin_arp(desc["ext"]["netns"], vm_ip, vm["mac"])

    assert ping(vm["netns"], ext_ip), "VM cannot reach the outside through OneSwitch"
    sent, received = tcp_echo(vm["netns"], desc["ext"]["netns"], ext_ip, nbytes=1 << 20)
    assert sent == received

    # Virtual ports: 1 = the VM (host), 2 = the wire port (sNIC), as auto-mapped from the description.
    rules = wait_for(lambda: (r := learned_rules(stack.target)) and (1, ext["mac"]) in r and (2, vm["mac"]) in r and r,
                     10, "the learned rules")
    assert rules[(1, ext["mac"])][0] == 2 and rules[(2, vm["mac"])][0] == 1

    # Exactly ten more pings: each direction's rule counts ten packets, once, though two bridges carried them.
    revalidate(stack.platform)
    time.sleep(1.2)  # the userspace datapath pushes flow stats to the tables about once a second
    before = learned_rules(stack.target)
    result = netns_run(vm["netns"], ["ping", "-c", "10", "-i", "0.05", "-W", "2", ext_ip])
    assert result.returncode == 0, result.stdout

    def delta(key):
        return learned_rules(stack.target)[key][1] - before[key][1]
    wait_for(lambda: delta((1, ext["mac"])) >= 10 and delta((2, vm["mac"])) >= 10, 10, "the counters to catch up")
    time.sleep(1.2)  # and nothing more arrives: each packet was counted once
    assert delta((1, ext["mac"])) == 10
    assert delta((2, vm["mac"])) == 10

    # On the bridges: the rule from the VM runs on the host (virtual table 0 is physical table 1) and sends
    # the packet over the PCIe link with the flow-id tag of the wire port, which the sNIC's dispatch table
    # (physical table 0) pops before the output; and the other way round.
    host, snic = desc["switches"][0], desc["switches"][1]
    pcie_h = next(p["ofport"] for p in host["ports"] if p["kind"] == "pcie")
    pcie_s = next(p["ofport"] for p in snic["ports"] if p["kind"] == "pcie")
    vm_port = next(p["ofport"] for p in host["ports"] if p["kind"] == "vm")
    wire_port = next(p["ofport"] for p in snic["ports"] if p["kind"] == "wire")
    host_flows = ofctl(switch_target(stack.platform, "host"), "dump-flows").stdout
    snic_flows = ofctl(switch_target(stack.platform, "snic0"), "dump-flows").stdout
    to_wire = re.search(rf"table=1, .*priority=1,in_port={vm_port},dl_dst={ext['mac']} actions=group:(\d+)", host_flows)
    to_vm = re.search(rf"table=1, .*priority=1,in_port={wire_port},dl_dst={vm['mac']} actions=group:(\d+)", snic_flows)
    assert to_wire and to_vm, (host_flows, snic_flows)
    tag_to_wire, tag_to_vm = int(to_wire[1]) - TAG_GROUP_BASE, int(to_vm[1]) - TAG_GROUP_BASE
    # Each tag is delivered as an MPLS label pushed after the VLAN tags (IPv4, ARP, ...; the label is the tag, from
    # 16, past the reserved labels), and, for other Ethertypes, as the label around the whole frame, which the
    # dispatch table decapsulates into the tunnel id before the delivery.
    assert 16 <= tag_to_wire < 1 << 20 and 16 <= tag_to_vm < 1 << 20, (tag_to_wire, tag_to_vm)
    label = tag_to_wire
    assert f"mpls,in_port={pcie_s},mpls_label={label} actions=resubmit(,253),output:{wire_port}" in snic_flows
    assert f"tun_id={label:#x},in_port={pcie_s} actions=output:{wire_port}" in snic_flows
    assert f"tun_id={tag_to_vm:#x},in_port={pcie_h} actions=output:{vm_port}" in host_flows
    assert re.search(rf"cookie=0x554f.*mpls,in_port={pcie_s},mpls_tc=7 actions=move:OXM_OF_MPLS_LABEL\[\]->"
                     r"NXM_NX_TUN_ID\[0..19\],decap\(\),decap\(packet_type\(ns=0,type=0\)\),resubmit\(,0\)",
                     snic_flows), snic_flows
    groups = ofctl(switch_target(stack.platform, "host"), "dump-groups").stdout
    assert f"set_field:{tag_to_wire:#x}->reg6,set_field:{pcie_h:#x}->reg5,resubmit(,252)" in groups, groups
    assert re.search(rf"table=252, .*ip,reg5={pcie_h:#x} actions=push_mpls:0x8847", host_flows), host_flows
    # The controller's table-miss rule has no ports, so it is on both bridges.
    assert "table=1, " in host_flows and "priority=0 actions=CONTROLLER:65535" in host_flows
    assert "priority=0 actions=CONTROLLER:65535" in snic_flows


def test_two_vms_and_ext_learn_each_other(oneswitch_stack):
    stack = oneswitch_stack(controller=True, vms=2)
    desc = stack.platform.description
    vm0, vm1 = desc["vms"]
    ext_ip = desc["ext"]["interfaces"][0]["ip"].split("/")[0]
    assert ping(vm0["netns"], vm1["ip"].split("/")[0]), "VMs on the same host switch"
    assert ping(vm1["netns"], ext_ip), "second VM to the outside"
    assert ping(vm0["netns"], ext_ip), "first VM to the outside"
    flows = ofctl(stack.target, "dump-flows").stdout
    assert "priority=1,in_port=3," in flows, "rules learned from the wire port (virtual port 3)"
