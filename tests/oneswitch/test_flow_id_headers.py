"""Flow ids on the PCIe link with real packets: a crossing frame reaches the far port exactly as one switch would
send it, its VLAN tags and Ethertype included. IPv4 frames carry the flow id as an MPLS label pushed after their
VLAN tags; frames of an Ethertype outside OneSwitch's code table (here the experimental 0x88b6) cross whole
inside an MPLS label (encap/decap), tenant QinQ included, which an 802.1ad flow-id tag used to cut short."""
from __future__ import annotations

import pathlib
import re
import struct
import subprocess
import sys
import time

import pytest
from oneswitch_stack import ofctl, revalidate, switch_target

pytestmark = pytest.mark.platform

UDP_SEQ = pathlib.Path(__file__).with_name("udp_seq.py")
sys.path.insert(0, str(UDP_SEQ.parent))
import udp_seq  # noqa: E402  (the frames' layout: MAGIC, then the sequence number)

#: (Ethertype under the tags, number of 802.1Q tags) of each kind of frame sent
KINDS = [(0x0800, 2), (0x88b6, 2), (0x88b6, 0), (0x0800, 0)]
PER_KIND = 40


def pcap_frames(path: pathlib.Path) -> list[bytes]:
    data, out, at = path.read_bytes(), [], 24
    while at + 16 <= len(data):
        length = struct.unpack_from("<I", data, at + 8)[0]
        out.append(data[at + 16:at + 16 + length])
        at += 16 + length
    return out


def headers(frame: bytes) -> tuple[list[tuple[int, int]], int]:
    """The VLAN tags (TPID, TCI) and the Ethertype after them."""
    tags, at = [], 12
    while struct.unpack_from("!H", frame, at)[0] in (0x8100, 0x88a8):
        tags.append(struct.unpack_from("!HH", frame, at))
        at += 4
    return tags, struct.unpack_from("!H", frame, at)[0]


def decap_packets(flows: str) -> int:
    m = re.search(r"n_packets=(\d+),.*priority=302,", flows)
    assert m, flows
    return int(m[1])


def send_and_capture(vm: dict, ext: dict, tmp_path) -> tuple[dict, dict]:
    """Sends PER_KIND frames of each kind from the VM; returns what was sent and the tags of what reached the wire,
    by kind."""
    pcap = tmp_path / "wire.pcap"
    dump = subprocess.Popen(["ip", "netns", "exec", ext["netns"], "tcpdump", "-i", ext["interfaces"][0]["ifname"],
                             "-w", str(pcap), "-U", "--immediate-mode"], stderr=subprocess.PIPE, text=True)
    sent = {}
    try:
        assert "listening on" in dump.stderr.readline()
        for ethertype, tags in KINDS:
            sent[(ethertype, tags)] = int(subprocess.run(
                ["ip", "netns", "exec", vm["netns"], sys.executable, str(UDP_SEQ), "send", vm["ifname"], "200",
                 str(PER_KIND / 200), str(tmp_path / "never"), hex(ethertype), str(tags)],
                check=True, capture_output=True, text=True).stdout)
        time.sleep(0.5)
    finally:
        dump.terminate()
        dump.wait(timeout=10)
    got: dict = {}
    for frame in pcap_frames(pcap):
        if udp_seq.MAGIC in frame:
            tags, ethertype = headers(frame)
            got.setdefault((ethertype, len(tags)), []).append(tags)
    print({f"{e:#06x}/{n}": len(v) for (e, n), v in got.items()})
    return sent, got


def check_arrivals(sent: dict, got: dict) -> None:
    for ethertype, tags in KINDS:
        arrived = got.get((ethertype, tags), [])
        assert len(arrived) == sent[(ethertype, tags)] > 0, (ethertype, tags, sent, {k: len(v) for k, v in got.items()})
        # udp_seq's tags: 802.1Q, VLAN ids 10 and 11, priority 0
        assert all(t == [(0x8100, 10 + i) for i in range(tags)] for t in arrived), arrived[:3]


def sealed_entries(target: str) -> list[str]:
    return [f for f in ofctl(target, "dump-flows").stdout.splitlines() if "cookie=0x554f" in f]


def content(entries: list[str]) -> list[str]:
    """The entries without their cookies, ages and counters."""
    return sorted(re.sub(r"(cookie|duration|n_packets|n_bytes)=[^ ]+ ", "", f) for f in entries)


def test_crossing_frames_keep_their_tags_and_ethertype(oneswitch_stack, tmp_path):
    stack = oneswitch_stack(controller=False, vms=1)
    vm, ext = stack.platform.description["vms"][0], stack.platform.description["ext"]
    # Virtual ports: 1 the VM (host), 2 the wire (snic0): every frame crosses the link.
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
    revalidate(stack.platform)
    snic = switch_target(stack.platform, "snic0")
    decapsulated_before = decap_packets(ofctl(snic, "dump-flows").stdout)

    sent, got = send_and_capture(vm, ext, tmp_path)
    check_arrivals(sent, got)
    # The frames of 0x88b6 were encapsulated: the sNIC decapsulated each of them.
    encapsulated = sum(n for (ethertype, _), n in sent.items() if ethertype == 0x88b6)
    time.sleep(1.2)  # the userspace datapath pushes flow stats to the tables about once a second
    assert decap_packets(ofctl(snic, "dump-flows").stdout) - decapsulated_before == encapsulated

    # Sealed entries (encap/decap, which OneSwitch never reads back): one egress and one decapsulating entry per
    # link on each bridge, written again by a restarted OneSwitch in place (same keys, its own cookies).
    hosts = [switch_target(stack.platform, sw) for sw in ("host", "snic0")]
    before = [sealed_entries(t) for t in hosts]
    assert [len(e) for e in before] == [2, 2], before
    stack.restart(kill=True)
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
    revalidate(stack.platform)
    after = [sealed_entries(t) for t in hosts]
    assert [content(e) for e in after] == [content(e) for e in before], after
    sent, got = send_and_capture(vm, ext, tmp_path)
    check_arrivals(sent, got)
