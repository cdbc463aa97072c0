"""output:NORMAL through OneSwitch behaves as on one Open vSwitch bridge whose ports are all trunks, with real
frames on real bridges: one MAC table for the host and the sNIC (a source learned on one switch steers the other's
frames to it), floods of unknown and broadcast destinations to every port but the ingress one, VLANs apart, moved
addresses followed, frames to the learned ingress port and to reserved addresses dropped.

The expected receivers are what Open vSwitch's NORMAL does on one bridge (ofproto-dpif-xlate's xlate_normal):
learn the unicast source on the ingress port and VLAN, drop reserved destinations, send to the learned port
(none if it is the ingress port), flood otherwise."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from oneswitch_stack import UDP_SEQ, ofctl, rest, revalidate, switch_target, udp_receiver
from udp_seq import frame

from uno_harness.verify.verifier import reference_bridge

pytestmark = pytest.mark.platform

MA, MB, MC, MX = "02:0a:00:00:00:0a", "02:0a:00:00:00:0b", "02:0a:00:00:00:0c", "02:0a:00:00:00:99"
BCAST, STP = "ff:ff:ff:ff:ff:ff", "01:80:c2:00:00:00"

# (sender, source MAC, destination MAC, VLAN tags, who must receive it). A and B are VMs on the host, C the sNIC's
# wire port: every step that names only one receiver across the PCIe link needs the other switch's learning.
STEPS = [
    ("A", MA, BCAST, 0, {"B", "C"}),   # broadcast floods; the host learns MA, the sNIC from the host's notice
    ("C", MC, MA, 0, {"A"}),           # the sNIC knows MA from the notice; the host learns MC from the sNIC's
    ("A", MA, MC, 0, {"C"}),           # so the host sends it to C only
    ("B", MB, MC, 0, {"C"}),
    ("C", MC, MB, 0, {"B"}),
    ("A", MA, MX, 0, {"B", "C"}),      # unknown destination: flooded
    ("A", MA, MC, 1, {"B", "C"}),      # MC was learned on VLAN 0 only
    ("C", MC, STP, 0, set()),          # reserved destination: dropped
    ("A", MA, MA, 0, set()),           # learned on the ingress port: dropped
    ("B", MC, BCAST, 0, {"A", "C"}),   # MC moves to B (host)
    ("A", MA, MC, 0, {"B"}),
    ("C", MB, MA, 0, {"A"}),           # MB moves to C (sNIC), learned on the sNIC and announced to the host
    ("A", MA, MB, 0, {"C"}),
    ("B", MC, MB, 0, {"C"}),           # MC still at B: the sNIC's table follows the host's move of MC to B
    ("C", MB, MC, 0, {"B"}),
]


def test_normal_is_one_learning_switch_across_host_and_snic(oneswitch_stack, tmp_path):
    stack = oneswitch_stack(controller=False, vms=2)
    vm1, vm2 = stack.platform.description["vms"]
    ext = stack.platform.description["ext"]
    ends = {"A": (vm1["netns"], vm1["ifname"]), "B": (vm2["netns"], vm2["ifname"]),
            "C": (ext["netns"], ext["interfaces"][0]["ifname"])}
    ofctl(stack.target, "add-flow", "priority=0,actions=NORMAL")
    revalidate(stack.platform)

    stop = tmp_path / "stop"
    receivers = {name: udp_receiver(*end, tmp_path / f"{name}.json", stop) for name, end in ends.items()}
    try:
        for seq, (sender, src, dst, tags, _) in enumerate(STEPS):
            subprocess.run(["ip", "netns", "exec", ends[sender][0], sys.executable, str(UDP_SEQ), "one",
                            ends[sender][1], str(seq), src, dst, str(tags)], check=True)
            time.sleep(0.3)  # the notice crosses the link and is learned before the next step
    finally:
        stop.touch()
        for p in receivers.values():
            p.wait(timeout=30)
    got = {name: json.loads((tmp_path / f"{name}.json").read_text())["seqs"] for name in ends}
    received = [{name for name, seqs in got.items() if seq in seqs} for seq in range(len(STEPS))]
    expected = [step[4] for step in STEPS]
    wrong = [(seq, STEPS[seq][:4], received[seq], expected[seq]) for seq in range(len(STEPS))
             if received[seq] != expected[seq]]
    assert not wrong, wrong
    assert all(seqs.count(s) == 1 for seqs in got.values() for s in seqs), "each receiver gets a frame at most once"

    # The MAC tables are learned entries on the bridges, with OneSwitch's sealed cookie (left out of the dumps its
    # reconciliation reads, so never taken for strays), keyed by VLAN and address, naming virtual ports.
    for switch in ("host", "snic0"):
        learned = ofctl(switch_target(stack.platform, switch), "dump-flows", "table=249").stdout
        assert learned.count("cookie=0x554fffffffffffff") >= 3, (switch, learned)
        assert f"dl_dst={MC} actions=load:0x2->NXM_NX_REG4[0..19]" in learned, (switch, learned)


# Packet-outs to NORMAL, in order: (in_port: a VM's name or CONTROLLER, source MAC, destination MAC, other actions
# before NORMAL). From the controller there is no ingress port: nothing is learned, reserved destinations are not
# dropped, a frame to its own source is not dropped; from a port, as a frame arriving there.
PACKET_OUTS = [
    ("CONTROLLER", MX, BCAST, ""),     # every port
    ("CONTROLLER", MA, MX, ""),        # MX was not learned from the controller: flooded
    ("A", MA, BCAST, ""),              # learns MA at A on the host, and the sNIC from the notice
    ("CONTROLLER", MX, MA, ""),        # to A only
    ("C", MC, MA, ""),                 # run on the sNIC, which knows MA; the host learns MC from the notice
    ("CONTROLLER", MX, MC, ""),        # run on the host: to C only
    ("CONTROLLER", MX, STP, ""),       # a reserved destination, from the controller: flooded
    ("A", MA, STP, ""),                # from a port: dropped
    ("A", MA, MA, ""),                 # learned on the ingress port: dropped
    ("CONTROLLER", MA, MA, ""),        # no ingress port: to A
    ("B", MB, MA, "output:C,"),        # the explicit output and NORMAL, each once
]


def test_normal_in_a_packet_out_does_what_one_bridge_does(oneswitch_stack, tmp_path):
    """The same packet-outs to OneSwitch and to one Open vSwitch bridge with the same port numbers reach the same
    ports, with no rule outputting to NORMAL: the first packet-out brings NORMAL's tables."""
    stack = oneswitch_stack(controller=False, vms=2)
    desc = stack.platform.description
    vm1, vm2 = desc["vms"]
    wire = desc["ext"]["interfaces"][0]
    port_map = rest(stack.rest, "GET", "/v1/ports")[1]["ports"]
    virtual = {m["port"]: m["virtual_port"] for m in port_map}
    numbers = {"A": virtual[vm1["port"]], "B": virtual[vm2["port"]], "C": virtual[wire["port"]]}
    _, ref_target = reference_bridge(stack.platform, stack.platform.prefix, port_map)
    host_ns = stack.platform.switch("host")["netns"]
    ends = {("oneswitch", "A"): (vm1["netns"], vm1["ifname"]), ("oneswitch", "B"): (vm2["netns"], vm2["ifname"]),
            ("oneswitch", "C"): (desc["ext"]["netns"], wire["ifname"])}
    ends |= {("reference", name): (host_ns, f"{stack.platform.prefix}r{n}") for name, n in numbers.items()}

    stop = tmp_path / "stop"
    receivers = {end: udp_receiver(*where, tmp_path / f"{'-'.join(end)}.json", stop) for end, where in ends.items()}
    try:
        for seq, (in_port, src, dst, before) in enumerate(PACKET_OUTS):
            packet = frame(seq, eth_src=src, eth_dst=dst).hex()
            actions = before.replace("C", str(numbers["C"])) + "NORMAL"
            for target in (ref_target, stack.target):
                ofctl(target, "packet-out", f"in_port={numbers.get(in_port, in_port)},packet={packet},"
                                            f"actions={actions}")
            time.sleep(0.3)  # a notice crosses the link and is learned before the next packet-out
    finally:
        stop.touch()
        for p in receivers.values():
            p.wait(timeout=30)
    got = {end: json.loads((tmp_path / f"{'-'.join(end)}.json").read_text())["seqs"] for end in ends}
    reached = {side: [{name for (s, name), seqs in got.items() if s == side and seq in seqs}
                      for seq in range(len(PACKET_OUTS))] for side in ("reference", "oneswitch")}
    wrong = [(seq, PACKET_OUTS[seq], reached["reference"][seq], reached["oneswitch"][seq])
             for seq in range(len(PACKET_OUTS)) if reached["reference"][seq] != reached["oneswitch"][seq]]
    assert not wrong, wrong
    assert reached["reference"][0] == {"A", "B", "C"} and reached["reference"][3] == {"A"}, reached["reference"]
    assert all(seqs.count(s) == 1 for seqs in got.values() for s in seqs), "each port gets a frame at most once"
    for switch in ("host", "snic0"):
        normal = ofctl(switch_target(stack.platform, switch), "dump-flows", "table=245").stdout
        assert "in_port=CONTROLLER" in normal, (switch, normal)
