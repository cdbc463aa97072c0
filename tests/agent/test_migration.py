"""Loss-free NF migration with state between host and sNIC, under traffic (issue 8)."""
from __future__ import annotations

import contextlib
import http.client
import pathlib
import subprocess
import time

import pytest
from test_agent import nf_pids, vm_netns
from uno_oneswitch.client import http_json

from uno_agent.migration_steps import FAULTS, REMOTE_FAULTS
from uno_harness.agent import PROFILES
from uno_harness.processes import wait_for
from uno_platform.traffic import NumberedUdp, ping

pytestmark = [pytest.mark.platform, pytest.mark.alone]   # no loss under live traffic: nothing beside it

FLOWS, PPS = 1000, 10000
SPORT = 20000
# A migration whose hold passes its bound rolls back, losing nothing (a starved host: CI's busy machine once
# stalled OneSwitch's switch stage for 657 ms), and is tried again; past this many, the test fails.
MAX_BOUND_ROLLBACKS = 3


def monitor_chain(stack):
    """VM -> monitor -> wire, the monitor starting on the sNIC; returns (vm, monitor, source ns, sink)."""
    vm = stack.create("vm0", "vm.small")
    mon = stack.create("mon", "monitor", **{"uno:expected_gbps": 0.05})
    assert mon["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "snic0"
    wire = stack.platform.description["ext"]["interfaces"][0]
    stack.set_chains([stack.chain("c1", vm, [mon], wire["port"])])
    source, sink_ip = vm_netns(stack, vm), wire["ip"].split("/")[0]
    wait_for(lambda: ping(source, sink_ip, count=1), 30, "the chain to forward")
    return vm, mon, source, sink_ip


def migrate(stack, server: dict, to: str) -> dict:
    """The server once its migration to `to` is over (the action answers at once, as Nova's does)."""
    return stack.migrate(server["id"], to)


def migrate_until_moved(stack, server: dict, to: str, rollbacks: list[dict]) -> dict:
    """`migrate`, tried again after a rollback for a hold past its bound (appended to `rollbacks`); any other
    failure, or more than MAX_BOUND_ROLLBACKS of them, fails the test."""
    while True:
        moved = migrate(stack, server, to)
        if moved["OS-EXT-SRV-ATTR:hypervisor_hostname"] == to:
            return moved
        bound_rollback(stack, rollbacks)


def bound_rollback(stack, rollbacks: list[dict]) -> None:
    """The latest migration must have rolled back for a hold past its bound (a busy machine, nothing lost): its
    report is appended to `rollbacks`, and more than MAX_BOUND_ROLLBACKS of them fail the test."""
    report = stack.api("GET", "/v2.1/uno/migrations")["migrations"][-1]
    assert report["rolled_back"] and report["bound_exceeded"], report
    rollbacks.append(report)
    assert len(rollbacks) <= MAX_BOUND_ROLLBACKS, [r["rollback_reason"] for r in rollbacks]


def nf_ports(stack, side: str) -> list[str]:
    ports = stack.platform.vsctl(side, "list-ports", stack.platform.switch(side)["bridge"]).split()
    return [p for p in ports if p.startswith(f"{stack.platform.prefix}n")]


def lost_where(stack, result: dict) -> str:
    """What a failed zero-loss assertion prints: which packets went missing, where the platform and the NFs
    counted drops, and how long each migration held packets."""
    losses = stack.api("GET", "/v2.1/uno/losses")["losses"]
    reports = stack.api("GET", "/v2.1/uno/migrations")["migrations"]
    held = [(r["source"], r["target"], round(r["held_from"] or 0, 3), round(r["held_until"] or 0, 3),
             {step: round(t * 1e3, 1) for step, t in r["timings"].items()}, r["rolled_back"]) for r in reports]
    first = min(((seq[0] * FLOWS + int(flow), flow) for flow, seq in result["missing"].items() if seq),
                default=(0, None))
    source = {key: result[key] for key in ("socket_drops", "send_refused", "source_late_max_s")}
    return (f"first missing: flow {first[1]} sent at {result['started_at'] + first[0] / PPS:.3f}; {source}; "
            f"reordered (flow, seq, after seq, sent, arrived) {result['reordered_first']}; "
            f"missing {result['missing']}; losses {losses}; "
            f"migrations (from, to, remap start, release, ms by step, rolled back) {held}")


@contextlib.contextmanager
def management_capture(stack, path: pathlib.Path):
    """A capture of the sNIC daemon's traffic on the management link, into `path` (remote profile only)."""
    if stack.platform.profile != "remote":
        yield
        return
    tcpdump = subprocess.Popen(["tcpdump", "-i", stack.platform.remote("snic0")["host_ifname"], "-U", "-s", "0",
                                "-w", str(path), "tcp port 7340"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)   # tcpdump is listening once it has opened the interface
        yield
    finally:
        tcpdump.terminate()
        tcpdump.wait(timeout=10)


def assert_no_plaintext(capture: pathlib.Path) -> None:
    """The capture holds the daemon's traffic (NF starts and stops, control, state both ways), and none of it is
    the NF control protocol's words, the daemon's requests or an NF's name in the clear."""
    data = capture.read_bytes()
    assert len(data) > 100_000, "the capture did not see the daemon's traffic"
    for clear in (b"state get", b"state put", b"buffer take", b"buffer release", b"inject", b'"op"', b"start_nf",
                  b"monitor"):
        assert clear not in data, f"{clear!r} crossed the management link in plaintext"


@pytest.mark.parametrize("profile", PROFILES)
def test_monitor_migrates_ten_round_trips_under_traffic_losing_nothing(uno_stack, profile, tmp_path):
    # On the remote profile the management link is captured meanwhile: the state crosses it 20 times.
    stack = uno_stack(profile=profile, snic_cores=1.0, pcie_gbps=1.0, vms=0, wire_ports=1)
    vm, mon, source, sink_ip = monitor_chain(stack)
    sides, rollbacks = [], []
    with management_capture(stack, tmp_path / "mgmt.pcap"), \
            NumberedUdp(source, stack.platform.description["ext"]["netns"], sink_ip, flows=FLOWS, pps=PPS,
                        seconds=12, sport=SPORT) as run:
        time.sleep(1.0)
        for _ in range(10):
            for side in ("host", "snic0"):
                moved = migrate_until_moved(stack, mon, side, rollbacks)
                sides.append(moved["OS-EXT-SRV-ATTR:hypervisor_hostname"])
                time.sleep(0.1)
    assert sides == ["host", "snic0"] * 10
    if profile == "remote":
        assert_no_plaintext(tmp_path / "mgmt.pcap")
        # OneSwitch settled the sNIC's switch through its daemon at each remap (its control socket is not here)
        assert stack.platform.client("snic0").call("ping")["purges"] >= 20
    # each report says where the remap's time went, in OneSwitch's own stages
    reports = [r for r in stack.api("GET", "/v2.1/uno/migrations")["migrations"] if not r["rolled_back"]][-20:]
    assert len(reports) == 20
    assert all(set(r["remap_stages"]) == {"add", "switch", "drain"} for r in reports)
    assert all(0 < sum(r["remap_stages"].values()) <= r["timings"]["remap"] for r in reports)
    assert all(0 < r["timings"]["links_drain_markers"] <= r["timings"]["links_drain"] for r in reports)
    result = run.result
    assert sum(result["sent"].values()) >= PPS * 11
    assert run.lost == 0, lost_where(stack, result)
    assert result["duplicates"] == 0 and result["reordered"] == 0, lost_where(stack, result)

    # The monitor that now runs carries the state of every packet: its per-flow counters equal what
    # was sent on each flow, across 20 moves.
    with stack.nf_control(mon["id"]) as ctl:
        counted = {f["sport"]: f["packets"] for f in ctl.flows(match={"proto": "udp", "dport": 9999})}
    assert counted == {SPORT + int(flow): sent for flow, sent in result["sent"].items()}
    # one monitor process; one NF port on each side: the monitor's, and on the host the spare it left there
    # (every move after the first two reused a port, none added or removed one)
    assert len(nf_pids(stack, "monitor")) == 1
    mapped = {p["port"] for p in http_json(f"http://127.0.0.1:{stack.ports.rest}/v1/ports")[1]["ports"]}
    assert len(nf_ports(stack, "snic0")) == 1 and set(nf_ports(stack, "snic0")) <= mapped
    assert len(nf_ports(stack, "host")) == 1 and not set(nf_ports(stack, "host")) & mapped


@pytest.mark.parametrize("fault, profile", [(fault, "emulated") for fault in FAULTS]
                         + [(fault, "remote") for fault in REMOTE_FAULTS])
def test_a_failed_migration_leaves_the_chain_forwarding_on_the_old_side(uno_stack, fault, profile):
    # On the remote profile the monitor's sNIC daemon dies, or its management link goes down for longer than a
    # request's timeout, as the state step begins: the old NF on the sNIC is out of reach, then back.
    stack = uno_stack(agent_config={"migration_faults": [fault]}, profile=profile, snic_cores=1.0, pcie_gbps=1.0,
                      vms=0, wire_ports=1)
    vm, mon, source, sink_ip = monitor_chain(stack)
    step = fault.split("=")[0]
    sent, rollbacks = 0, []
    while True:
        with NumberedUdp(source, stack.platform.description["ext"]["netns"], sink_ip, flows=100, pps=2000,
                         seconds=3, sport=SPORT) as run:
            time.sleep(0.5)
            after = migrate(stack, mon, "host")
        assert run.lost == 0 and run.result["duplicates"] == 0 and run.result["reordered"] == 0
        sent += sum(run.result["sent"].values())
        if f"step '{step}'" in after["fault"]["message"]:
            break
        # Under a CPU hog a hold can pass its bound before the faulted step (a remote sNIC's remap took 1.0-1.7 s
        # in 3 runs of 13): that migration rolled back, with nothing lost (above), and the fault, which fires only
        # in its own step, is still to come.
        bound_rollback(stack, rollbacks)
    report = stack.api("GET", "/v2.1/uno/migrations")["migrations"][-1]
    assert report["rolled_back"] and f"step '{step}'" in report["rollback_reason"]
    if fault == "state=slow-state":     # a hold past its bound (time or fill) is why
        assert "the new NF's hold" in report["rollback_reason"] or "past half" in report["rollback_reason"]
    after = stack.api("GET", f"/v2.1/servers/{mon['id']}")["server"]
    assert after["status"] == "ACTIVE" and after["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "snic0"
    assert after["ports"] == mon["ports"]
    assert len(nf_pids(stack, "monitor")) == 1
    with stack.nf_control(mon["id"]) as ctl:
        stats = ctl.stats()
        assert stats["buffer_state"] == "off"
        counted = sum(f["packets"] for f in ctl.flows(match={"proto": "udp", "dport": 9999}))
    assert counted == sent


@pytest.mark.parametrize("fault", REMOTE_FAULTS)
def test_an_snic_failing_as_an_nf_moves_onto_it_leaves_the_nf_forwarding_on_the_host(uno_stack, fault):
    """The other direction of the remote faults above: the new NF, on the sNIC, holds what reached it since the
    switch-over when its daemon dies or its link goes down; the rollback remaps the port back once OneSwitch
    reaches the sNIC's bridge again, and takes what the new NF held back through the channel made again, so
    nothing is lost."""
    stack = uno_stack(profile="remote", snic_cores=1.0, pcie_gbps=1.0, vms=0, wire_ports=1)
    vm, mon, source, sink_ip = monitor_chain(stack)
    assert migrate(stack, mon, "host")["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "host"
    stack.agent.stop()
    stack.agent_config = {**stack.agent_config, "migration_faults": [fault]}
    stack.start_agent()
    daemon = stack.platform.client("snic0").call("ping")["pid"]
    with NumberedUdp(source, stack.platform.description["ext"]["netns"], sink_ip, flows=100, pps=2000,
                     seconds=3, sport=SPORT) as run:
        time.sleep(0.5)
        after = migrate(stack, mon, "snic0")
    assert "step 'state'" in after["fault"]["message"], after
    assert after["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "host" and after["status"] == "ACTIVE"
    assert run.lost == 0 and run.result["duplicates"] == 0 and run.result["reordered"] == 0
    if fault == "state=kill-snic-daemon":
        assert stack.platform.client("snic0").call("ping")["pid"] != daemon      # it did die, and came back
    assert stack.platform.client("snic0").call("list")["nfs"] == {}             # the new NF was stopped there
    with stack.nf_control(mon["id"]) as ctl:
        counted = sum(f["packets"] for f in ctl.flows(match={"proto": "udp", "dport": 9999}))
    assert counted == sum(run.result["sent"].values())


def crash_during_migration(stack, mon: dict) -> bool:
    """Asks for `mon`'s migration to the host; True once the agent has died of its fault, False when the migration
    was over with the agent alive (it never reached the faulty step)."""
    try:
        stack.api("POST", f"/v2.1/servers/{mon['id']}/action", {"migrate": {"host": "host"}})
    except (OSError, http.client.HTTPException):
        pass  # the agent may die before it answers, or while it does

    def over():
        if stack.agent.popen.poll() is not None:
            return "crashed"
        try:
            server = stack.api("GET", f"/v2.1/servers/{mon['id']}")["server"]
        except (OSError, http.client.HTTPException):
            return None  # dying
        return "over" if server["status"] != "MIGRATING" else None
    # a dead agent answers nothing, so "over" means it answered after the migration ended: it did not crash
    return wait_for(over, 60, "the agent's crash or the migration's end", interval=0.02) == "crashed"


@pytest.mark.parametrize("step, ends_on, profile", [("start", "snic0", "emulated"), ("drain", "host", "emulated"),
                                                     ("state", "host", "emulated"), ("state", "host", "remote")])
def test_an_agent_crash_during_a_migration_is_undone_or_finished_on_restart_losing_nothing(uno_stack, step, ends_on,
                                                                                          profile):
    # Killed before the remap, the restarted agent undoes the migration; killed after it (the new
    # NF holding everything sent meanwhile), it finishes it, state included. Killed at the state
    # step, the old NF already holds: the journal says remap, and redoing drain, quiesce and state
    # from there must neither lose nor repeat a packet.
    stack = uno_stack(agent_config={"migration_faults": [f"{step}=crash-agent"]}, profile=profile, snic_cores=1.0,
                      pcie_gbps=1.0, vms=0, wire_ports=1)
    vm, mon, source, sink_ip = monitor_chain(stack)
    # The restarted agent finishes or undoes the migration before it answers (start_agent waits for that), so
    # nothing is held once the source ends: the sink's usual wait for stragglers is enough.
    with NumberedUdp(source, stack.platform.description["ext"]["netns"], sink_ip, flows=100, pps=2000,
                     seconds=4, sport=SPORT) as run:
        time.sleep(0.5)
        rollbacks: list[dict] = []
        while not crash_during_migration(stack, mon):
            # a hold past its bound on a busy machine rolled the migration back before the faulty step (it lost
            # nothing): try again, as migrate_until_moved does
            bound_rollback(stack, rollbacks)
        stack.agent_config = {**stack.agent_config, "migration_faults": []}
        stack.start_agent()
    assert run.lost == 0 and run.result["duplicates"] == 0 and run.result["reordered"] == 0
    after = stack.api("GET", f"/v2.1/servers/{mon['id']}")["server"]
    assert after["status"] == "ACTIVE" and after["OS-EXT-SRV-ATTR:hypervisor_hostname"] == ends_on
    assert after["ports"] == mon["ports"]
    assert len(nf_pids(stack, "monitor")) == 1
    with stack.nf_control(mon["id"]) as ctl:
        counted = sum(f["packets"] for f in ctl.flows(match={"proto": "udp", "dport": 9999}))
    assert counted == sum(run.result["sent"].values())
