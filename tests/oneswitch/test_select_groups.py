"""SELECT groups on real bridges, with real packets over many flows (ofproto/trace does not follow the
datapath's dp_hash, the datapath does). What one switch guarantees: every packet of a flow takes the same
bucket, each packet leaves once, and every bucket is taken by some flows. Here one bucket is local to the host
(VM 2) and one crosses the PCIe link to the sNIC's wire, with a header rewrite of its own."""
from __future__ import annotations

import collections
import json
import subprocess
import sys
import time

import pytest
from oneswitch_stack import UDP_SEQ, ofctl, revalidate, udp_receiver

pytestmark = pytest.mark.platform

FLOWS, PER_FLOW = 200, 5



def test_each_flow_sticks_to_one_bucket_and_every_bucket_is_taken(oneswitch_stack, tmp_path):
    stack = oneswitch_stack(controller=False, vms=2)
    vm1, vm2 = stack.platform.description["vms"]
    ext = stack.platform.description["ext"]
    # Virtual ports: 1 and 2 the VMs (host), 3 the wire (snic0).
    ofctl(stack.target, "add-group", "group_id=1,type=select,bucket=weight:1,actions=output:2,"
          "bucket=weight:1,actions=set_field:02:00:00:00:00:77->eth_dst,output:3")
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,udp,actions=group:1")
    revalidate(stack.platform)

    stop = tmp_path / "stop"
    receivers = {"local": udp_receiver(vm2["netns"], vm2["ifname"], tmp_path / "local.json", stop),
                 "remote": udp_receiver(ext["netns"], ext["interfaces"][0]["ifname"], tmp_path / "remote.json", stop)}
    try:
        sent = int(subprocess.run(["ip", "netns", "exec", vm1["netns"], sys.executable, str(UDP_SEQ), "flows",
                                   vm1["ifname"], str(FLOWS), str(PER_FLOW), "1000"], check=True, capture_output=True,
                                  text=True).stdout)
        time.sleep(0.5)
    finally:
        stop.touch()
        for p in receivers.values():
            p.wait(timeout=30)
    assert sent == FLOWS * PER_FLOW
    got = {name: json.loads((tmp_path / f"{name}.json").read_text()) for name in receivers}
    buckets_of = collections.defaultdict(set)
    for name, result in got.items():
        for seq in result["seqs"]:
            buckets_of[seq // PER_FLOW].add(name)
    delivered = collections.Counter(seq for result in got.values() for seq in result["seqs"])
    print({name: len(r["seqs"]) for name, r in got.items()})
    assert sorted(delivered) == list(range(sent)) and set(delivered.values()) == {1}, "each packet leaves once"
    assert all(len(b) == 1 for b in buckets_of.values()), "every packet of a flow takes the flow's bucket"
    per_bucket = collections.Counter(next(iter(b)) for b in buckets_of.values())
    # Weights 1:1 over 200 flows: about 100 each; 60 is more than five standard deviations below.
    assert per_bucket["local"] >= 60 and per_bucket["remote"] >= 60, per_bucket
