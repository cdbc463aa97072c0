"""The migration's decisions without root, over the fakes (tests/fakes.py): a migration processes every
packet once and in order; a failure at any step rolls back with nothing lost; an agent that dies at
any step leaves a journal from which `recover` finishes or undoes the migration, again losing nothing."""
from __future__ import annotations

import pytest
from fakes import World

from uno_agent.catalog import Flavor
from uno_agent.migration import HOLD_MIN_PACKETS, MigrationError
from uno_agent.migration_steps import JOURNALLED, STEPS

MONITOR = Flavor(id="monitor", name="monitor", kind="nf", host=None, snic=None, binary="monitor")


class AgentDied(BaseException):
    """The agent stopped at a step (as SIGKILL would stop it): nothing after it runs, no rollback."""


def test_a_migration_processes_every_packet_once_and_in_order(world):
    migrator = world.migrator()
    migrator.migrate(world.server, MONITOR, "snic0")
    world.assert_lossless_and_running("snic0")
    report = migrator.reports[-1]
    assert not report.rolled_back and report.packets_moved + report.held_by_new > 0
    assert world.launcher.stopped == ["nf1-0"]
    migrator.migrate(world.server, MONITOR, "host")
    world.assert_lossless_and_running("host")


def test_the_port_an_nf_leaves_is_kept_for_its_return_and_reused_then(world):
    """No bridge port is added or removed on a round trip after the first move: each stalls the datapath."""
    migrator = world.migrator()
    migrator.migrate(world.server, MONITOR, "snic0")
    first = world.server.port
    assert world.server.spare == {"side": "host", "port": "nfh0"}
    assert world.launcher.kept_ports == {("host", "nfh0")}
    migrator.migrate(world.server, MONITOR, "host")
    world.assert_lossless_and_running("host")
    assert world.server.port == "nfh0" and world.server.spare == {"side": "snic0", "port": first}
    migrator.migrate(world.server, MONITOR, "snic0")
    world.assert_lossless_and_running("snic0")
    assert world.server.port == first and world.launcher.kept_ports == {("host", "nfh0"), ("snic0", first)}


def test_a_rolled_back_return_keeps_the_spare_port_and_a_third_side_replaces_it(world):
    migrator = world.migrator()
    migrator.migrate(world.server, MONITOR, "snic0")
    spare = world.server.spare
    with pytest.raises(MigrationError, match="failed at step 'state'"):
        world.migrator({"state": "corrupt-state"}).migrate(world.server, MONITOR, "host")
    world.assert_lossless_and_running("snic0")
    assert world.server.spare == spare and ("host", "nfh0") in world.launcher.kept_ports
    migrator.migrate(world.server, MONITOR, "snic1")   # one spare per server: the host's goes
    world.assert_lossless_and_running("snic1")
    assert world.server.spare["side"] == "snic0" and ("host", "nfh0") not in world.launcher.kept_ports


@pytest.mark.parametrize("step", ["drain", "quiesce", "state", "release"])
def test_stragglers_reaching_the_old_nf_late_go_ahead_of_what_the_new_one_held(world, step):
    """Packets sent to the old NF before the switch-over may reach it while the migration goes on (before
    the release: OneSwitch's drain and the agent's quiet time bound how late): each is processed before
    every later packet, which the new NF holds meanwhile."""
    world.traffic.stragglers = 4
    world.migrator(on_step=lambda at: world.traffic.arrive() if at == step else None).migrate(
        world.server, MONITOR, "snic0")
    world.assert_lossless_and_running("snic0")


def test_what_the_old_nf_sent_goes_on_before_the_new_nf_runs_and_its_port_goes(world):
    """A busy switch reads the old NF's port late: the migration waits for it (before the release, so that
    the old NF's last packets go ahead of the new one's, and before the port is removed with them)."""
    world.traffic.slow_ports.add(("host", "nfh0"))
    world.migrator().migrate(world.server, MONITOR, "snic0")
    world.assert_lossless_and_running("snic0")


def test_what_the_old_nfs_switch_sent_over_its_links_is_through_before_the_new_nf_lets_a_packet_go(world):
    """The old NF's last packets may still be on a PCIe link, or in the next switch's receive buffer, when the
    new NF's first reach the same exit by a shorter way: the release asks OneSwitch to drain the old NF's
    switch's links first, once that switch has read all the old NF sent."""
    seen = []
    drain_from = world.portmap.drain_from

    def recording(switch_id, timeout_s):
        new = [nf for nf in world.launcher.controls.values() if nf.alive and nf is not world.live_nf()]
        seen.append((switch_id, len(world.traffic.processed), [nf.buffering for nf in new]))
        return drain_from(switch_id, timeout_s)

    world.portmap.drain_from = recording
    world.traffic.slow_ports.add(("host", "nfh0"))
    world.migrator().migrate(world.server, MONITOR, "snic0")
    world.assert_lossless_and_running("snic0")
    (switch_id, processed_then, new_holding), = seen
    old_sent = world.launcher.controls["fake:nf1-0"].count
    assert switch_id == "host" and processed_then == old_sent and new_holding == [True]


def test_a_drain_that_does_not_come_back_rolls_the_migration_back(world):
    world.portmap.drains_lost = True
    migrator = world.migrator()
    with pytest.raises(MigrationError, match="failed at step 'release'.*not through"):
        migrator.migrate(world.server, MONITOR, "snic0")
    assert migrator.reports[-1].bound_exceeded
    world.assert_lossless_and_running("host")


def _a_switch_that_never_reads_the_old_port(world, tick_s: float):
    """A migrator whose clock moves `tick_s` at each look, for a world whose host switch never reads the old NF's
    port; and the clock's reading (a one-element list)."""
    world.traffic.slow_ports.add(("host", "nfh0"))
    world.launcher.stuck_ports.add(("host", "nfh0"))
    now = [1000.0]

    def clock():
        now[0] += tick_s
        return now[0]

    return world.migrator(clock=clock), now


def _the_switch_reads_again(world) -> None:
    world.launcher.stuck_ports.clear()
    world.traffic.read(("host", "nfh0"))


def test_a_switch_that_never_reads_the_old_port_rolls_the_migration_back(world):
    migrator, _ = _a_switch_that_never_reads_the_old_port(world, 0.1)
    with pytest.raises(MigrationError, match="failed at step 'release'.*has not read"):
        migrator.migrate(world.server, MONITOR, "snic0")
    _the_switch_reads_again(world)
    world.assert_lossless_and_running("host")


def test_the_old_nfs_path_is_waited_for_only_while_oneswitch_keeps_its_entries(world):
    """OneSwitch deletes the old port's entries `remap_grace` after the remap: a switch that reads the old port
    too late for that rolls the migration back while they are there (the remap back keeps them)."""
    world.portmap.old_entries_kept_s = 1.5
    migrator, now = _a_switch_that_never_reads_the_old_port(world, 0.01)
    with pytest.raises(MigrationError, match="failed at step 'release'.*before the old path goes"):
        migrator.migrate(world.server, MONITOR, "snic0")
    report = migrator.reports[-1]
    assert report.bound_exceeded
    # given up half the grace (less than OLD_PATH_MARGIN_S) before the entries go, not HOLD_BOUND_S (1 s) after
    # the release began
    assert 0.7 < now[0] - report.held_from < 0.75 + 0.05
    _the_switch_reads_again(world)
    world.assert_lossless_and_running("host")


@pytest.mark.parametrize("kept_s", [0.2, 0.0])
def test_a_short_grace_leaves_half_of_it_to_the_release_and_none_leaves_the_hold_bound(world, kept_s):
    world.portmap.old_entries_kept_s = kept_s
    world.migrator().migrate(world.server, MONITOR, "snic0")
    world.assert_lossless_and_running("snic0")


def _new_nf_fails_to_start(w: World):
    w.launcher.fail_start = True
    return {}, None


def _oneswitch_refuses_the_remap(w: World):
    w.portmap.refuse = True
    return {}, None


def _the_state_is_damaged(w: World):
    return {"state": "corrupt-state"}, None


def _the_new_nf_refuses_the_state(w: World):
    def refuse(step):
        if step == "state":
            w.launcher.controls[w.server.migration["new_control"]].refuse_state = True
    return {}, refuse


@pytest.mark.parametrize("fault, at, why", [
    (_new_nf_fails_to_start, "start", "did not start"),
    (_oneswitch_refuses_the_remap, "remap", "OneSwitch refused"),
    (_the_state_is_damaged, "state", "does not decode"),
    (_the_new_nf_refuses_the_state, "state", "does not decode"),
])
def test_a_failure_rolls_back_with_nothing_lost(world, fault, at, why):
    faults, on_step = fault(world)
    migrator = world.migrator(faults, on_step=on_step) if on_step else world.migrator(faults)
    with pytest.raises(MigrationError, match=f"failed at step '{at}'"):
        migrator.migrate(world.server, MONITOR, "snic0")
    report = migrator.reports[-1]
    assert report.rolled_back and why in report.rollback_reason and not report.bound_exceeded
    world.assert_lossless_and_running("host")


def test_packets_held_past_the_bound_roll_the_migration_back(world):
    now = [1000.0]
    migrator = world.migrator(clock=lambda: now[0], on_step=lambda step: now.__setitem__(0, now[0] + 0.6))
    with pytest.raises(MigrationError, match="past 1 s"):
        migrator.migrate(world.server, MONITOR, "snic0")
    assert "waited" in migrator.reports[-1].rollback_reason and migrator.reports[-1].bound_exceeded
    world.assert_lossless_and_running("host")


@pytest.mark.parametrize("step", STEPS)
def test_an_agent_that_dies_at_any_step_recovers_with_nothing_lost(world, step):
    def die(at):
        if at == step:
            raise AgentDied(at)

    with pytest.raises(AgentDied):
        world.migrator(on_step=die).migrate(world.server, MONITOR, "snic0")
    journal = world.server.migration
    # it died as the step began, before journalling it: a release that ran shows only in the new NF
    assert journal["step"] == max((s for s in JOURNALLED if STEPS.index(s) < STEPS.index(step)), key=STEPS.index,
                                  default="start")
    moved = STEPS.index(step) > STEPS.index("remap")
    world.migrator().recover(world.server)
    world.assert_lossless_and_running("snic0" if moved else "host")


def test_a_hold_past_half_full_rolls_the_migration_back(world):
    """A surge after the switch-over fills the new NF's hold past half: the fill it reports as it imports
    the state rolls the migration back before the release, with nothing lost."""
    surge = HOLD_MIN_PACKETS // 2 + 1

    def surge_at_the_state(step):
        if step == "state":
            world.traffic.per_request = surge
    migrator = world.migrator(on_step=surge_at_the_state)
    with pytest.raises(MigrationError, match="failed at step 'state'.*past half"):
        migrator.migrate(world.server, MONITOR, "snic0")
    assert migrator.reports[-1].bound_exceeded
    world.traffic.per_request = 3
    world.assert_lossless_and_running("host")



@pytest.mark.parametrize("which", ["old", "new"])
@pytest.mark.parametrize("step", ["drain", "quiesce", "state"])
def test_an_nf_channel_that_breaks_rolls_back_and_the_rollback_waits_for_it(world, which, step):
    """The channel to one NF breaks after the switch-over (its sNIC's daemon dies) and comes back after a few
    refused reconnects (the daemon restarts): the migration rolls back, and the rollback takes back what each NF
    holds through the channel made again, so nothing is lost."""
    migrator = world.migrator()
    migrator.migrate(world.server, MONITOR, "snic0")       # the old NF is now on the sNIC, holding nothing

    def break_channel(at):
        if at == step:
            server = world.server
            control = server.control if which == "old" else server.migration["new_control"]
            nf = world.launcher.controls[control]
            nf.broken, nf.refused = True, 3

    fails_at = step if which == "old" else "state"         # the first step with a request to the new NF
    with pytest.raises(MigrationError, match=f"failed at step '{fails_at}'.*connection closed"):
        world.migrator(on_step=break_channel).migrate(world.server, MONITOR, "host")
    world.assert_lossless_and_running("snic0")


def test_a_channel_that_stays_broken_fails_the_rollback_in_bounded_time(world, monkeypatch):
    """Past the rollback's patience the NF is left where it was, with the fault, and the failure is reported."""
    monkeypatch.setattr("uno_agent.migration.ROLLBACK_PATIENCE_S", 0.3)

    def break_new(at):
        if at == "state":
            nf = world.launcher.controls[world.server.migration["new_control"]]
            nf.broken, nf.refused = True, 1000

    with pytest.raises(MigrationError, match="failed at step 'state'"):
        world.migrator(on_step=break_new).migrate(world.server, MONITOR, "snic0")
    assert world.server.status == "ACTIVE" and world.server.side == "host" and world.server.fault


def test_a_remap_back_oneswitch_cannot_do_yet_is_tried_again(world):
    """A failure after the switch-over whose rollback finds the new NF's switch out of OneSwitch's reach for a
    moment (its management link down): the remap back is tried again until it is done, and nothing is lost."""
    def fail_then_cut(step):
        if step == "state":
            world.launcher.controls[world.server.migration["new_control"]].refuse_state = True
            world.portmap.unreachable = 3

    with pytest.raises(MigrationError, match="failed at step 'state'"):
        world.migrator(on_step=fail_then_cut).migrate(world.server, MONITOR, "snic0")
    assert world.portmap.unreachable == 0
    world.assert_lossless_and_running("host")


def test_a_lost_reply_to_the_rollbacks_inject_still_releases_the_old_nf(world):
    """The old NF took the packets handed back but its answer was lost (its link went down): the inject is not
    sent again (that would repeat packets), and the old NF is still released, so it forwards again."""
    def fail_state(step):
        if step == "state":
            world.launcher.controls[world.server.migration["new_control"]].refuse_state = True
            world.live_nf().lose_reply = "inject"

    with pytest.raises(MigrationError, match="failed at step 'state'"):
        world.migrator(on_step=fail_state).migrate(world.server, MONITOR, "snic0")
    world.assert_lossless_and_running("host")
