"""Restarts. OneSwitch restarted (here killed) while traffic flows: the bridges keep forwarding (fail-secure), and
the restarted OneSwitch, from its state file, shows the same virtual rules and leaves the physical entries alone
(same cookies, counters not reset). A switch daemon killed and started again comes back with an empty table,
which OneSwitch fills again when it reconnects."""
from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest
from oneswitch_stack import ofctl, rest, revalidate, switch_target, wait_for
from test_remap import socket_drops
from uno_oneswitch import statefile

from uno_platform.cgroups import preexec_join
from uno_platform.traffic import ping

pytestmark = pytest.mark.platform

UDP_SEQ = pathlib.Path(__file__).with_name("udp_seq.py")


def virtual_rules(target: str) -> list[str]:
    lines = ofctl(target, "dump-flows").stdout.splitlines()[1:]
    return sorted(re.sub(r" duration=[^,]*,| n_packets=\d+,| n_bytes=\d+,", "", line).strip() for line in lines)


def physical(platform, switch_id: str) -> dict[str, tuple[str, int]]:
    """cookie -> (the entry without counters, n_packets)."""
    out = {}
    for line in ofctl(switch_target(platform, switch_id), "dump-flows").stdout.splitlines()[1:]:
        cookie = re.search(r"cookie=(0x[0-9a-f]+)", line)[1]
        out[cookie] = (re.sub(r" duration=[^,]*,| n_packets=\d+,| n_bytes=\d+,", "", line).strip(),
                       int(re.search(r"n_packets=(\d+)", line)[1]))
    return out


# The id of OneSwitch's own first flow-id tag group (tag 16), which the group's bucket itself needs on snic0: the
# group's copies have another id there, and a restarted OneSwitch must give them the same one (the state file's
# group_ids).
GROUP = 0xffe30010


def install(stack) -> None:
    ext = stack.platform.description["ext"]["interfaces"][0]
    ofctl(stack.target, "add-group", f"group_id={GROUP},type=all,bucket=output:1")
    ofctl(stack.target, "add-flow", f"priority=10,in_port=1,dl_dst={ext['mac']},actions=output:2")
    ofctl(stack.target, "add-flow", f"priority=10,in_port=2,actions=group:{GROUP}")
    ofctl(stack.target, "add-flow", "priority=5,arp,actions=FLOOD")
    # Constructs with OneSwitch's own physical form (the action-set flag in reg7, the flood group), which a
    # restarted OneSwitch must read back as equal; they match no packet of the test's traffic.
    ofctl(stack.target, "add-flow", f"priority=3,tcp,tp_dst=9,actions=write_actions(group:{GROUP}),goto_table:1")
    ofctl(stack.target, "add-flow", "table=1,priority=3,actions=write_actions(output:2)")
    ofctl(stack.target, "add-flow", "priority=3,tcp,tp_dst=10,actions=write_actions(FLOOD)")
    revalidate(stack.platform)


def test_oneswitch_restart_keeps_forwarding_and_its_rules(oneswitch_stack, tmp_path):
    state = tmp_path / "state.json"
    stack = oneswitch_stack(controller=False, vms=1, oneswitch_args=("--state-file", str(state)))
    install(stack)
    vm = stack.platform.description["vms"][0]
    ext = stack.platform.description["ext"]
    assert len(statefile.rule_ids(statefile.read(state))) == 6, "acknowledged, so on disk"
    before_virtual = virtual_rules(stack.target)
    before = {sw: physical(stack.platform, sw) for sw in ("host", "snic0")}

    stop, stop_sending = tmp_path / "stop", tmp_path / "stop-sending"
    receiver = subprocess.Popen(["ip", "netns", "exec", vm["netns"], sys.executable, str(UDP_SEQ), "receive",
                                 vm["ifname"], str(tmp_path / "vm.json"), str(stop)], stdout=subprocess.PIPE, text=True)
    assert receiver.stdout.readline().strip() == "ready"
    sender = subprocess.Popen(["ip", "netns", "exec", ext["netns"], sys.executable, str(UDP_SEQ), "send",
                               ext["interfaces"][0]["ifname"], "2000", "60", str(stop_sending)], stdout=subprocess.PIPE,
                              text=True)
    try:
        time.sleep(0.5)
        stack.oneswitch.popen.kill()  # a crash, not a clean exit: the state file is what was written before
        stack.oneswitch.stop()
        time.sleep(1.0)  # the bridges forward on their own meanwhile (fail-secure)
        stack.restart()
        time.sleep(0.5)
    finally:
        stop_sending.touch()
        sent = int(sender.communicate(timeout=30)[0])
        time.sleep(0.5)
        stop.touch()
        receiver.wait(timeout=30)
    got = json.loads((tmp_path / "vm.json").read_text())
    missing = set(range(sent)) - set(got["seqs"])
    drops = socket_drops(stack.platform)
    print(f"sent {sent}, received {len(got['seqs'])}, lost {len(missing)}, datapath socket drops {drops}")
    assert sent > 3000 and len(missing) <= sum(drops.values()), (len(missing), drops)

    assert virtual_rules(stack.target) == before_virtual
    for sw in ("host", "snic0"):
        after = physical(stack.platform, sw)
        assert {c: e for c, (e, _) in after.items()} == {c: e for c, (e, _) in before[sw].items()}, \
            f"{sw}: the restarted OneSwitch changed entries"
        assert all(after[c][1] >= n for c, (_, n) in before[sw].items()), f"{sw}: counters were reset"
    assert f"group_id={GROUP}" in ofctl(stack.target, "dump-groups").stdout


def test_a_switch_daemon_restart_ends_with_its_table_reconciled(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    install(stack)
    desc = stack.platform.description
    expected = {c: e for c, (e, _) in physical(stack.platform, "snic0").items()}
    groups = sorted(ofctl(switch_target(stack.platform, "snic0"), "dump-groups").stdout.splitlines()[1:])
    # the switch that connected second checked the link with the first (either may be first)
    checked = wait_for(lambda: rest(stack.rest, "GET", "/v1/health")[1]["link_checks"], 10, "the first link check")
    assert [c["ok"] for c in checked.values()] == [True], checked
    first_ms = max(c["at_ms"] for c in checked.values())

    ovs = stack.platform.ovs("snic0")
    pid = ovs.pid("ovs-vswitchd")
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not os.path.exists(f"/proc/{pid}"), 10, "ovs-vswitchd to die")
    env = {**os.environ, "OVS_RUNDIR": str(ovs.rundir), "OVS_LOGDIR": str(ovs.rundir), "OVS_DBDIR": str(ovs.rundir)}
    subprocess.run(["ip", "netns", "exec", ovs.netns, "ovs-vswitchd", ovs.db_socket,
                    f"--pidfile={ovs.pidfile('ovs-vswitchd')}", f"--unixctl={ovs.appctl_socket}",
                    f"--log-file={ovs.rundir}/ovs-vswitchd.log", "--detach", "--no-chdir"],
                   check=True, capture_output=True, timeout=30, env=env,
                   preexec_fn=preexec_join(stack.platform.cgroup("snic0")))

    def reconciled():
        try:
            return {c: e for c, (e, _) in physical(stack.platform, "snic0").items()} == expected
        except AssertionError:
            return False
    wait_for(reconciled, 30, "OneSwitch to refill the restarted sNIC switch")
    # once refilled, drain markers cross the PCIe link both ways again (a remap's drain needs them)
    again = wait_for(lambda: (c := rest(stack.rest, "GET", "/v1/health")[1]["link_checks"].get("snic0"))
                     and c["at_ms"] > first_ms and c, 10, "the restarted switch's link check")
    assert again["ok"] and again["with"] == ["host"], again
    assert sorted(ofctl(switch_target(stack.platform, "snic0"), "dump-groups").stdout.splitlines()[1:]) == groups
    revalidate(stack.platform)
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    assert ping(vm["netns"], ext["ip"].split("/")[0], count=3), "traffic crosses the restarted switch again"
