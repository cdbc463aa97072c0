"""What a flow id costs per packet on the PCIe link: an MPLS label against an 802.1ad tag.

OneSwitch carries a crossing packet's flow id as an MPLS label for the Ethertypes it codes (IPv4, IPv6, ARP,
MPLS, 802.1Q, 802.1ad), so that tenant QinQ keeps both tags, and as an 802.1ad tag for the others
(oneswitch/DESIGN.md, "flow ids on the link"). Here one crossing rule (VM on the host -> wire on the sNIC)
carries the same UDP frames three ways, at the same rate, in one run:

* `label`: IPv4 frames (the MPLS label);
* `tag`: the same frames with the experimental Ethertype 0x88b5 (the 802.1ad tag);
* `qinq_label`: IPv4 frames inside two 802.1Q tags (the label after both tags).

For each it reports the frames delivered and the CPU time both ovs-vswitchd processes spent per delivered frame
(their utime + stime over the phase), and the label's and QinQ's ratio to the tag's. Results:
bench/results/oneswitch-flow-id.json.
"""
from __future__ import annotations

import json
import os
import pathlib
import socket
import struct
import subprocess
import sys

from bench.bench_oneswitch import Stack, environment
from uno_harness.oneswitch import build_jar, ofctl, revalidate

RATE, SECONDS = 20000, 3.0
SENDER = """
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
frame = bytes.fromhex(sys.argv[2])
rate, seconds = int(sys.argv[3]), float(sys.argv[4])
start, sent = time.monotonic(), 0
while time.monotonic() - start < seconds:
    due = int((time.monotonic() - start) * rate)
    while sent < due:
        s.send(frame)
        sent += 1
    time.sleep(0.0005)
print(sent)
"""
COUNTER = """
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, 33, 32 << 20)
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
marker = bytes.fromhex(sys.argv[2])
print("ready", flush=True)
seen, last = 0, time.monotonic()
while time.monotonic() - last < 1.0:
    try:
        data, addr = s.recvfrom(4096)
    except TimeoutError:
        continue
    if addr[2] != socket.PACKET_OUTGOING and marker in data:
        seen += 1
        last = time.monotonic()
print(seen)
"""
PAYLOAD = b"UNOFLOWID" + bytes(64)


def frame(ethertype_after_tags: int, tags: int) -> bytes:
    udp = struct.pack("!HHHH", 4000, 9999, 8 + len(PAYLOAD), 0) + PAYLOAD
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, socket.inet_aton("10.0.0.1"),
                     socket.inet_aton("10.0.0.2")) + udp
    vlans = b"".join(struct.pack("!HH", 0x8100, 10 + i) for i in range(tags))
    macs = b"\x02\x00\x00\x00\x00\x99" + b"\x02\x00\x00\x00\x00\x01"
    return macs + vlans + struct.pack("!H", ethertype_after_tags) + ip


KINDS = {"label": frame(0x0800, 0), "tag": frame(0x88b5, 0), "qinq_label": frame(0x0800, 2)}


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def phase(stack: Stack, vm: dict, ext: dict, data: bytes) -> dict:
    pids = [stack.platform.ovs(s).pid("ovs-vswitchd") for s in ("host", "snic0")]
    counter = subprocess.Popen(["ip", "netns", "exec", ext["netns"], sys.executable, "-c", COUNTER,
                                ext["interfaces"][0]["ifname"], PAYLOAD[:9].hex()], stdout=subprocess.PIPE, text=True)
    assert counter.stdout.readline().strip() == "ready"
    before = sum(cpu_seconds(p) for p in pids)
    sent = int(subprocess.run(["ip", "netns", "exec", vm["netns"], sys.executable, "-c", SENDER, vm["ifname"],
                               data.hex(), str(RATE), str(SECONDS)], check=True, capture_output=True,
                              text=True).stdout)
    delivered = int(counter.communicate(timeout=30)[0])
    cpu = sum(cpu_seconds(p) for p in pids) - before
    return {"sent": sent, "delivered": delivered, "ovs_cpu_s": round(cpu, 3),
            "ovs_cpu_us_per_frame": round(cpu / max(delivered, 1) * 1e6, 2), "frame_bytes": len(data)}


def main(results_dir: pathlib.Path) -> dict:
    build_jar()
    stack = Stack(vms=1)
    try:
        vm, ext = stack.platform.description["vms"][0], stack.platform.description["ext"]
        ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
        revalidate(stack.platform)
        phase(stack, vm, ext, KINDS["label"])  # warm-up: the first frames set up the datapath's megaflows
        results = {kind: phase(stack, vm, ext, data) for kind, data in KINDS.items()}
    finally:
        stack.close()
    tag = results["tag"]["ovs_cpu_us_per_frame"]
    report = {"benchmark": "oneswitch flow id on the PCIe link: MPLS label against 802.1ad tag",
              "rate_pps": RATE, "seconds": SECONDS, "results": results,
              "label_vs_tag": round(results["label"]["ovs_cpu_us_per_frame"] / tag, 2),
              "qinq_label_vs_tag": round(results["qinq_label"]["ovs_cpu_us_per_frame"] / tag, 2),
              "environment": environment()}
    (results_dir / "oneswitch-flow-id.json").write_text(json.dumps(report, indent=2) + "\n")
    return {k: report[k] for k in ("label_vs_tag", "qinq_label_vs_tag")}
