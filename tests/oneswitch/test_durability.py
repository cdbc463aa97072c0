"""An acknowledgement from OneSwitch means durable (DESIGN.md): with a state file, a BARRIER_REPLY (and a REST answer)
is sent only once every change before it is on disk. OneSwitch is SIGKILLed right after acknowledgements and at random
points of a bulk install, and every acknowledged rule must be back, in OneSwitch and on the bridges; a full disk and a
read-only directory make it refuse changes (errors, 503, health "degraded") until the disk recovers, and nothing it
refused comes back."""
from __future__ import annotations

import contextlib
import pathlib
import random
import re
import subprocess

import pytest
from oneswitch_stack import OfClient, free_port, ofctl, rest, revalidate, start_oneswitch, switch_target, wait_for
from uno_oneswitch import statefile

from uno_harness import killcheck
from uno_platform.traffic import ping

pytestmark = pytest.mark.platform


def durable_stack(oneswitch_stack, state: pathlib.Path):
    return oneswitch_stack(controller=False, vms=2, oneswitch_args=("--state-file", str(state)))


def target(stack) -> killcheck.Target:
    def kill():
        stack.oneswitch.popen.kill()
        stack.oneswitch.popen.wait()

    return killcheck.Target(listen=stack.listen, bridge=switch_target(stack.platform, "host"), kill=kill,
                            restart=stack.restart)


def test_rules_acknowledged_by_a_barrier_survive_a_sigkill_right_after_it(oneswitch_stack, tmp_path):
    stack = durable_stack(oneswitch_stack, tmp_path / "state.json")
    t = target(stack)
    client = OfClient(stack.listen)
    acked, refused = killcheck.install(client, list(range(500)), t.in_port, t.out_port)
    t.kill()  # right after the barrier reply
    client.close()
    assert refused == set()
    stack.restart()
    report = killcheck.Report(rules=500)
    killcheck.check(t, acked, refused, report, "after the restart")
    assert report.ok(), report


def test_a_single_add_flow_survives_a_sigkill_right_after_it_returned(oneswitch_stack, tmp_path):
    stack = durable_stack(oneswitch_stack, tmp_path / "state.json")
    t = target(stack)
    for i in range(2):
        ofctl(stack.target, "add-flow", f"priority=1,in_port=1,dl_dst={killcheck.mac(i)},actions=output:2")
        t.kill()
        stack.restart()
        assert killcheck.virtual_rules(stack.listen) == set(range(i + 1)), f"after add-flow {i}"
        assert killcheck.physical_rules(t.bridge) == set(range(i + 1)), "the restart kept it on the bridge"


def test_sigkill_at_random_points_of_a_bulk_install_loses_no_acknowledged_rule(oneswitch_stack, tmp_path):
    stack = durable_stack(oneswitch_stack, tmp_path / "state.json")
    # bench/bench_oneswitch.py (kill_recovery) runs this at full size
    report = killcheck.install_with_kills(target(stack), count=1000, kills=2, rng=random.Random(15))
    print(report)
    assert report.kills == 2 and report.acked == 1000, report
    assert report.ok(), report


@contextlib.contextmanager
def mounted(path: pathlib.Path, *args: str):
    """`mount ARGS path` for the test's duration; unmounted after (lazily if something still holds it)."""
    path.mkdir(exist_ok=True)
    subprocess.run(["mount", *args, str(path)], check=True, capture_output=True)
    try:
        yield path
    finally:
        if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(path)], check=True, capture_output=True)


def health(stack) -> dict:
    return rest(stack.rest, "GET", "/v1/health")[1]


def refused_then_recovers(stack, t: killcheck.Target, break_disk, heal_disk, reason: str) -> None:
    """Rules acknowledged, then the disk breaks: what is sent is refused (EPERM), REST answers 503 and health says
    degraded, logged once; the disk heals and OneSwitch accepts changes again; after a SIGKILL, what was acknowledged is
    back and nothing refused is."""
    client = OfClient(stack.listen)
    acked, refused = killcheck.install(client, list(range(50)), t.in_port, t.out_port)
    assert refused == set()
    break_disk()
    ok, no = killcheck.install(client, list(range(50, 350)), t.in_port, t.out_port)
    assert no, "changes that cannot be written are refused"
    acked |= ok
    refused |= no
    h = health(stack)
    assert h["status"] == "degraded" and h["state_file"]["status"] == "degraded", h
    assert reason in h["state_file"]["error"] and h["state_file"]["write_failures"] >= 1, h
    ok, no = killcheck.install(client, list(range(350, 400)), t.in_port, t.out_port)
    assert no == set(range(350, 400)), "while degraded every change is refused at once"
    refused |= no
    status, body = rest(stack.rest, "POST", "/v1/ports", {"switch": "host", "port": "nope"})
    assert status == 503 and "state file" in body["error"], (status, body)
    assert killcheck.physical_rules(t.bridge) == acked, "what was refused is not on the bridge either"
    heal_disk()
    wait_for(lambda: health(stack)["status"] == "ok", 30, "OneSwitch to write its state file again")
    ok, no = killcheck.install(client, list(range(400, 450)), t.in_port, t.out_port)
    assert no == set()
    acked |= ok
    client.close()
    log = stack.oneswitch.log.read_text()
    assert log.count("state file cannot be written") == 1, "one line per transition, not per write"
    assert log.count("changes are accepted again") == 1

    t.kill()
    stack.restart()
    report = killcheck.Report(rules=450)
    killcheck.check(t, acked, refused, report, "after the restart")
    assert report.ok(), report


def test_a_full_disk_refuses_changes_until_it_has_room_again(oneswitch_stack, tmp_path):
    with mounted(tmp_path / "state", "-t", "tmpfs", "-o", "size=1m", "tmpfs") as d:
        stack = durable_stack(oneswitch_stack, d / "state.json")
        filler = d / "filler"

        def fill():
            subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=4k"], capture_output=True)

        try:
            refused_then_recovers(stack, target(stack), fill, filler.unlink, "No space left on device")
        finally:
            stack.oneswitch.stop()


def test_a_read_only_directory_refuses_changes_until_it_is_writable(oneswitch_stack, tmp_path):
    d = tmp_path / "state"
    with mounted(d, "--bind", str(tmp_path / "state")):
        stack = durable_stack(oneswitch_stack, d / "state.json")

        def remount(mode: str):
            # EBUSY while OneSwitch has the file open for a write: it holds it only that long
            wait_for(lambda: subprocess.run(["mount", "-o", f"remount,bind,{mode}", str(d)],
                                            capture_output=True).returncode == 0, 10, f"remount {mode}")

        try:
            refused_then_recovers(stack, target(stack), lambda: remount("ro"), lambda: remount("rw"),
                                  "Read-only file system")
        finally:
            stack.oneswitch.stop()


def answers(rest_port: int) -> bool:
    try:
        return rest(rest_port, "GET", "/v1/health")[0] == 200
    except OSError:
        return False


def counts(listen: int) -> dict[str, int]:
    """n_packets of each virtual rule, by its match (through OneSwitch's passive listener)."""
    out = {}
    for line in ofctl(f"tcp:127.0.0.1:{listen}", "dump-flows").stdout.splitlines()[1:]:
        out[re.search(r"(priority=\S+) actions", line)[1]] = int(re.search(r"n_packets=(\d+)", line)[1])
    return out


def test_counters_survive_restarts_also_without_the_bridges_entries(oneswitch_stack, tmp_path):
    """Issue 16: a restored rule deleted before the bridges reconnect reports what it counted before the restart in its
    FLOW_REMOVED (not 0/0), and a rule whose bridge lost its entries while OneSwitch was down goes on from its saved
    counts."""
    state = tmp_path / "state.json"
    stack = durable_stack(oneswitch_stack, state)
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,send_flow_rem,actions=output:2")
    ofctl(stack.target, "add-flow", "priority=10,in_port=2,actions=output:1")
    revalidate(stack.platform)
    vms = stack.platform.description["vms"]
    assert ping(vms[0]["netns"], vms[1]["ip"].split("/")[0], count=5)
    revalidate(stack.platform)  # the bridges' counters follow their datapaths'
    before = counts(stack.listen)
    assert before["priority=10,in_port=1"] >= 5 and before["priority=10,in_port=2"] >= 5, before
    stack.oneswitch.stop()  # SIGTERM: a last snapshot with the counters the bridges report
    saved = {r["id"]: r.get("counters") for r in statefile.read(state)[0]["rules"]}
    assert all(saved.values()), saved

    # Restarted where the bridges do not connect: the rules show their saved counts, and a deleted one reports them.
    alone = start_oneswitch(f"{stack.platform.description['state_dir']}/platform.json", tmp_path / "alone.log",
                            listen=stack.listen, south=free_port(), rest_port=stack.rest, controller=None,
                            extra=["--state-file", str(state)])
    try:
        wait_for(lambda: answers(stack.rest), 30, "OneSwitch without its bridges")
        assert counts(stack.listen) == before
        client = OfClient(stack.listen)
        p, ofp = client.parser, client.ofp
        client.send(p.OFPSetConfig(client.dp, 0, 128))  # a service connection asks for asynchronous messages
        client.send(p.OFPFlowMod(client.dp, table_id=0, command=ofp.OFPFC_DELETE_STRICT, priority=10,
                                 out_port=ofp.OFPP_ANY, out_group=ofp.OFPG_ANY, match=p.OFPMatch(in_port=1)))
        removed = [m for m in client.barrier() if m.msg_type == ofp.OFPT_FLOW_REMOVED]
        client.close()
        assert len(removed) == 1 and removed[0].packet_count == before["priority=10,in_port=1"], removed
        assert removed[0].byte_count > 0
    finally:
        alone.stop()

    # The host bridge loses its table while OneSwitch is down: the rule put back goes on from its saved counts.
    ofctl(switch_target(stack.platform, "host"), "del-flows")
    stack.restart()
    after = counts(stack.listen)
    assert "priority=10,in_port=1" not in after
    assert after["priority=10,in_port=2"] == before["priority=10,in_port=2"], (before, after)


def test_rules_added_again_survive_a_sigkill(oneswitch_stack, tmp_path):
    """A controller adding a rule it already has (OFPFC_ADD replaces it) must not lose it on a crash: the soak found
    thousands of such rules missing after a SIGKILL and a restart."""
    stack = durable_stack(oneswitch_stack, tmp_path / "state.json")
    t = target(stack)
    client = OfClient(stack.listen)
    first, _ = killcheck.install(client, list(range(300)), t.in_port, t.out_port)
    again, _ = killcheck.install(client, list(range(300)), t.in_port, t.out_port)
    client.close()
    assert first == again == set(range(300))
    t.kill()
    stack.restart()
    report = killcheck.Report(rules=300)
    killcheck.check(t, again, set(), report, "after the restart")
    assert report.ok(), (report.lost[:10], report.differ)
