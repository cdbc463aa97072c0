"""Issue 16, point 2: meters against real Open vSwitch bridges. A meter whose rules all take their packets in
on one switch is kept: its copy on that bridge meters every packet, so the rate holds for the virtual switch, and
its counters are the bridges' own. Issue 22: when its rules' packets enter on two switches, the sNIC's ports'
packets run the pipeline on the host, so one copy still meters them all."""
from __future__ import annotations

import re

import pytest
from oneswitch_stack import ofctl, revalidate, switch_target

from uno_platform.traffic import NumberedUdp, ping

pytestmark = pytest.mark.platform

RATE_PPS = 200
SEND_PPS = 1000
SECONDS = 3.0


def meter_stats(target: str) -> dict[str, int]:
    """Meter 1's packet_in_count and its drop band's packet_count, from `ovs-ofctl meter-stats`."""
    out = ofctl(target, "meter-stats", "meter=1").stdout
    if "meter:1 " not in out:
        return {"in": 0, "dropped": 0, "flows": 0}
    return {"in": int(re.search(r"packet_in_count:(\d+)", out)[1]),
            "dropped": int(re.search(r"0: packet_count:(\d+)", out)[1]),
            "flows": int(re.search(r"flow_count:(\d+)", out)[1])}


def bridge_flows(stack, switch: str) -> list[str]:
    """A bridge's entries without their cookies, sorted."""
    out = ofctl(switch_target(stack.platform, switch), "dump-flows", options=("--no-stats",)).stdout.splitlines()[1:]
    return sorted(re.sub(r"cookie=0x[0-9a-f]+, ", "", line) for line in out)


def test_a_meter_on_one_switch_is_kept_and_holds_its_rate(oneswitch_stack, tmp_path):
    stack = oneswitch_stack(controller=False, vms=1, oneswitch_args=("--state-file", str(tmp_path / "state.json")))
    t = stack.target
    desc = stack.platform.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    ext_ip = ext["ip"].split("/")[0]

    features = ofctl(t, "meter-features").stdout
    bridge_features = ofctl(switch_target(stack.platform, "host"), "meter-features").stdout
    assert features.split("\n", 1)[1] == bridge_features.split("\n", 1)[1], "the bridges' own meter features"

    ofctl(t, "add-meter", f"meter=1,pktps,stats,band=type=drop,rate={RATE_PPS}")
    assert "meter=1 pktps stats bands=\ntype=drop rate=200" in ofctl(t, "dump-meters").stdout
    for sw in ("host", "snic0"):  # a copy on each bridge; only the host's sees packets
        assert "meter=1 pktps stats" in ofctl(switch_target(stack.platform, sw), "dump-meters").stdout

    # VM (port 1, on the host) to the wire (port 2, on the sNIC), metered where the packets enter: the host.
    ofctl(t, "add-flow", "priority=100,in_port=1,actions=meter:1,output:2")
    ofctl(t, "add-flow", "priority=100,in_port=2,actions=output:1")
    revalidate(stack.platform)
    assert ping(vm["netns"], ext_ip)
    before = meter_stats(t)
    with NumberedUdp(vm["netns"], desc["ext"]["netns"], ext_ip, flows=1, pps=SEND_PPS, seconds=SECONDS) as run:
        pass
    sent = sum(run.result["sent"].values())
    received = sum(run.result["received"].values())
    after = meter_stats(t)
    print(f"meter {RATE_PPS} pkt/s: sent {sent} in {SECONDS} s, received {received}, meter saw "
          f"{after['in'] - before['in']} and dropped {after['dropped'] - before['dropped']}")
    # The rate holds: about RATE_PPS per second of sending pass (plus the bucket's first burst, one second's worth
    # in Open vSwitch), far fewer than were sent; every packet the meter let through arrived, the rest it dropped.
    seconds = run.result["seconds"]
    assert RATE_PPS * seconds * 0.7 <= received <= RATE_PPS * (seconds + 1.5), (sent, received, seconds)
    assert after["in"] - before["in"] >= sent
    assert after["dropped"] - before["dropped"] == sent - received - run.result["socket_drops"]
    # The virtual meter's counters are the sum of the bridges' copies, and count the virtual rules that apply it.
    bridges = [meter_stats(switch_target(stack.platform, sw)) for sw in ("host", "snic0")]
    assert after["in"] == sum(b["in"] for b in bridges) and after["dropped"] == sum(b["dropped"] for b in bridges)
    assert after["flows"] == 1 and bridges[1]["in"] == 0, "the sNIC's copy meters nothing"

    # A crash loses nothing: the restarted OneSwitch has the meter and its rule from its state file, finds the
    # bridges' copies equal and leaves them alone, with their counters.
    stack.restart(kill=True)
    assert "meter=1 pktps stats bands=\ntype=drop rate=200" in ofctl(t, "dump-meters").stdout
    assert "actions=meter:1,output:2" in ofctl(t, "dump-flows").stdout
    assert meter_stats(t) == after
    assert "reconciling host: 1 meters, 0 changes" in stack.oneswitch.tail(200)

    # Deleting the meter deletes the rule that applies it, here and on the bridges.
    ofctl(t, "del-meter", "meter=1")
    assert "in_port=1" not in ofctl(t, "dump-flows").stdout
    assert "meter" not in ofctl(switch_target(stack.platform, "host"), "dump-flows").stdout
    assert "meter=1" not in ofctl(switch_target(stack.platform, "host"), "dump-meters").stdout


def test_a_meter_whose_rules_enter_on_two_switches_holds_one_rate(oneswitch_stack, tmp_path):
    """Rules on the VM's port (host) and the wire's (sNIC) apply one meter: the wire's packets are carried to the
    host to run the pipeline there, so one bucket meters both directions, as on one bridge."""
    stack = oneswitch_stack(controller=False, vms=1, oneswitch_args=("--state-file", str(tmp_path / "state.json")))
    t = stack.target
    desc = stack.platform.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    vm_ip, ext_ip = vm["ip"].split("/")[0], ext["ip"].split("/")[0]
    ofctl(t, "add-meter", f"meter=1,pktps,stats,band=type=drop,rate={RATE_PPS}")
    ofctl(t, "add-flow", "priority=100,in_port=1,actions=meter:1,output:2")
    ofctl(t, "add-flow", "priority=100,in_port=2,actions=meter:1,output:1")
    assert "pipeline home host" in stack.oneswitch.tail(50)
    assert "meter:1" not in ofctl(switch_target(stack.platform, "snic0"), "dump-flows").stdout
    revalidate(stack.platform)
    assert ping(vm["netns"], ext_ip)
    before = meter_stats(t)
    with NumberedUdp(vm["netns"], desc["ext"]["netns"], ext_ip, flows=1, pps=SEND_PPS, seconds=SECONDS) as out, \
            NumberedUdp(desc["ext"]["netns"], vm["netns"], vm_ip, flows=1, pps=SEND_PPS, seconds=SECONDS) as back:
        pass
    runs = (out.result, back.result)
    sent = [sum(r["sent"].values()) for r in runs]
    received = [sum(r["received"].values()) for r in runs]
    after = meter_stats(t)
    print(f"meter {RATE_PPS} pkt/s over both directions: sent {sent}, received {received}, meter saw "
          f"{after['in'] - before['in']} and dropped {after['dropped'] - before['dropped']}")
    seconds = max(r["seconds"] for r in runs)
    # One bucket: the two directions share RATE_PPS (two buckets would let twice as many through).
    assert RATE_PPS * seconds * 0.7 <= sum(received) <= RATE_PPS * (seconds + 1.5), (sent, received, seconds)
    assert min(received) > 0, "both directions pass the meter"
    assert after["in"] - before["in"] >= sum(sent)
    bridges = [meter_stats(switch_target(stack.platform, sw)) for sw in ("host", "snic0")]
    assert bridges[1]["in"] == 0 and after["flows"] == 2, "the host's copy meters both rules' packets"

    # A crash loses nothing: the restarted OneSwitch finds the pipeline home again from its rules, and the
    # bridges' entries are those it had (entries openflowj cannot read back are written again, new cookies).
    flows_before = {sw: bridge_flows(stack, sw) for sw in ("host", "snic0")}
    stack.restart(kill=True)
    assert "pipeline home host" in stack.oneswitch.tail(200)
    for sw in ("host", "snic0"):
        assert bridge_flows(stack, sw) == flows_before[sw], sw
    assert ping(vm["netns"], ext_ip)

    # The wire's rule goes: each switch meters its own ports' packets again, and the wire's pipeline is the sNIC's.
    ofctl(t, "del-flows", "priority=100,in_port=2", options=("--strict",))
    assert "pipeline home none" in stack.oneswitch.tail(50)
    ofctl(t, "add-flow", "priority=100,in_port=2,actions=output:1")
    revalidate(stack.platform)
    assert ping(vm["netns"], ext_ip)
    assert "in_port=2" in ofctl(switch_target(stack.platform, "snic0"), "dump-flows", "table=1").stdout
    unknown = ofctl(t, "add-flow", "priority=100,in_port=1,actions=meter:7,output:2", check=False)
    assert unknown.returncode != 0 and "OFPMMFC_UNKNOWN_METER" in unknown.stderr
