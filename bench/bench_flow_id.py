"""What a flow id costs per packet on the PCIe link: an MPLS label pushed after the VLAN tags against one around
the whole frame.

OneSwitch carries a crossing packet's flow id as an MPLS label pushed after its VLAN tags for the Ethertypes it
codes (IPv4, IPv6, ARP, MPLS, 802.1Q, 802.1ad), and for the others as a label around the whole frame
(encap(mpls) + encap(ethernet), 18 bytes; the far side decapsulates and looks the frame up again), so that tenant
QinQ keeps both tags either way (oneswitch/DESIGN.md, "flow ids on the link"). Here one crossing rule (VM on the
host -> wire on the sNIC) carries the same UDP frames four ways, at the same rate, in one run:

* `label`: IPv4 frames (the label after the Ethernet header);
* `encap`: the same frames with the experimental Ethertype 0x88b5 (encapsulated);
* `qinq_label`: IPv4 frames inside two 802.1Q tags (the label after both tags);
* `qinq_encap`: 0x88b5 frames inside two 802.1Q tags (encapsulated).

For each it reports the frames delivered and the CPU time both ovs-vswitchd processes spent per delivered frame
(their utime + stime over the phase), and each kind's ratio to `label`'s. Results:
bench/results/oneswitch-flow-id.json.
"""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

from bench.bench_oneswitch import Stack, cpu_seconds, environment
from uno_harness.oneswitch import build_jar, ofctl, revalidate

RATE, SECONDS = 20000, 3.0
UDP_SEQ = pathlib.Path(__file__).resolve().parents[1] / "tests" / "oneswitch" / "udp_seq.py"
#: kind -> (Ethertype under the VLAN tags, number of 802.1Q tags) of udp_seq.py's numbered IPv4/UDP frames
KINDS = {"label": (0x0800, 0), "encap": (0x88b5, 0), "qinq_label": (0x0800, 2), "qinq_encap": (0x88b5, 2)}


def phase(stack: Stack, vm: dict, ext: dict, ethertype: int, tags: int, workdir: pathlib.Path) -> dict:
    pids = [stack.platform.ovs(s).pid("ovs-vswitchd") for s in ("host", "snic0")]
    out, stop = workdir / "received.json", workdir / "stop"
    stop.unlink(missing_ok=True)
    receiver = subprocess.Popen(["ip", "netns", "exec", ext["netns"], sys.executable, str(UDP_SEQ), "receive",
                                 ext["interfaces"][0]["ifname"], str(out), str(stop)], stdout=subprocess.PIPE,
                                text=True)
    assert receiver.stdout.readline().strip() == "ready"
    before = sum(cpu_seconds(p) for p in pids)
    try:
        sent = int(subprocess.run(["ip", "netns", "exec", vm["netns"], sys.executable, str(UDP_SEQ), "send",
                                   vm["ifname"], str(RATE), str(SECONDS), str(stop), hex(ethertype), str(tags)],
                                  check=True, capture_output=True, text=True).stdout)
        time.sleep(0.5)
    finally:
        stop.touch()
        receiver.wait(timeout=30)
    cpu = sum(cpu_seconds(p) for p in pids) - before
    delivered = len(json.loads(out.read_text())["seqs"])
    return {"sent": sent, "delivered": delivered, "ovs_cpu_s": round(cpu, 3),
            "ovs_cpu_us_per_frame": round(cpu / max(delivered, 1) * 1e6, 2), "tags": tags,
            "ethertype": hex(ethertype)}


def main(results_dir: pathlib.Path) -> dict:
    build_jar()
    stack = Stack(vms=1)
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="bench-flow-id-"))
    try:
        vm, ext = stack.platform.description["vms"][0], stack.platform.description["ext"]
        ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
        revalidate(stack.platform)
        phase(stack, vm, ext, *KINDS["label"], workdir)  # warm-up: the first frames set up the datapath's megaflows
        results = {kind: phase(stack, vm, ext, *kind_of, workdir) for kind, kind_of in KINDS.items()}
    finally:
        stack.close()
        shutil.rmtree(workdir, ignore_errors=True)
    label = results["label"]["ovs_cpu_us_per_frame"]
    report = {"benchmark": "oneswitch flow id on the PCIe link: MPLS label after the tags against around the frame",
              "rate_pps": RATE, "seconds": SECONDS, "results": results,
              "vs_label": {kind: round(r["ovs_cpu_us_per_frame"] / label, 2) for kind, r in results.items()},
              "environment": environment()}
    (results_dir / "oneswitch-flow-id.json").write_text(json.dumps(report, indent=2) + "\n")
    return report["vs_label"]
