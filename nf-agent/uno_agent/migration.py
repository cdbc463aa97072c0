"""Loss-free migration of an NF, with its state, between the host and an sNIC (paper §3.2.2, §3.3.2).

The steps (start, remap and retire are recorded in the server's `migration` journal before
they run; after the remap, recovery redoes drain, quiesce, state and release unless the new NF
says it was released):

  start      the new NF on the target side, on a new port, holding what it receives
  remap      OneSwitch moves the virtual port to the new port, make-before-break; from the
             switch-over on, packets reach the new NF, which holds them; the old NF goes on
             processing what was sent to it before
  drain      until nothing has reached the old NF for a moment: it processed everything
  quiesce    the old NF stops processing and holds what it receives (a late straggler)
  state      the old NF's state (final now) is exported and imported into the new NF
  release    until the old NF's switch has read everything the old NF sent (a busy switch may lag, and
             the state moved meanwhile), and what it sent on over the PCIe links has been forwarded by
             the other switches (OneSwitch's drain markers): that goes out ahead of the new NF's
             packets, and nothing of it is left when the old port goes; then the old NF's stragglers
             move to the new NF, which processes them ahead of its own held packets, then processes
             those in order and runs normally
  retire     the old NF and its port go

Every packet is processed exactly once, in order, so nothing is lost, duplicated or
reordered and the new NF's state reflects every packet. Only packets that reach the
new NF before its release wait, and only from the switch-over on: the old NF never
stops while OneSwitch remaps. A failure rolls back: the old NF holds, the virtual
port is remapped back if it had moved, what the new NF held is handed to the old NF
ahead of what the old NF holds, and the old NF runs on. After a crash of the agent,
`recover` finishes or undoes a migration from its journal and from where OneSwitch
says the virtual port is.

Holds are bounded. The new NF's hold is sized from the old NF's receive rate, measured just
before the start: twice what arrives in HOLD_BOUND_S. After each step from the switch-over on,
packets that have waited past HOLD_BOUND_S (a starved side, a slow state transfer), or a hold
past half full, roll the migration back before anything is lost; the report says why. The fill
is the one the new NF gave last (in its answer to the state's import, just before the release):
every request between the switch-over and the release makes the held packets wait longer, and
within HOLD_BOUND_S the hold passes half full only if the rate more than doubles. The release's
waits on the old NF's path (its switch, the links after it) end OLD_PATH_MARGIN_S (or half the
grace) before OneSwitch deletes the old port's entries (`remap_grace` after the remap), or roll
back: past that, what the old NF still sends would be dropped.
"""
from __future__ import annotations

import collections
import dataclasses
import logging
import time
from collections.abc import Callable

from uno_agent.catalog import Flavor
from uno_agent.errors import AgentError, Conflict
from uno_agent.inventory import Server
from uno_agent.launcher import Launcher
from uno_agent.migration_record import MigrationRecord
from uno_agent.migration_steps import JOURNALLED, STEPS, Journal, recovery_steps
from uno_agent.oneswitch import PortMapper
from uno_nfs import ChannelBroken, NfControl, NfControlError

log = logging.getLogger(__name__)

REPORTS_KEPT = 100
QUIET_S = 0.002          # the old NF received nothing for this long: nothing is in flight to it (the
                         # remap returned after its markers crossed every PCIe link; only the last hop
                         # from the switch to the NF remains)
DRAIN_TIMEOUT_S = 2.0
HOLD_BOUND_S = 1.0       # the longest a packet may wait in the new NF's hold: past it, the migration rolls back
HOLD_MIN_PACKETS = 1 << 16  # the new NF's hold is twice what arrives in HOLD_BOUND_S at the measured rate,
HOLD_MAX_PACKETS = 1 << 20  # within these bounds; past half of it, the migration rolls back too. The floor
                            # is high because a 20 ms sample on a busy host can see nothing (the NF was not
                            # running): a 4,096-packet floor rolled back migrations at 10,000 packets/s. The
                            # hold's memory is mapped lazily, so an unused floor costs nothing.
RATE_SAMPLE_S = 0.02     # how long the old NF's receive rate is measured before a migration
ROLLBACK_PATIENCE_S = 10.0  # how long a rollback waits for an NF's broken control channel to come back (an sNIC
                            # daemon restarting, a management link down), while the new NF holds
RECONNECT_POLL_S = 0.1     # how often a rollback tries a broken channel, or a remap OneSwitch could not do, again
OLD_PATH_MARGIN_S = 1.0  # a rollback's remap back, on a starved host, before OneSwitch deletes the old entries
                         # (at most half of OneSwitch's remap_grace)
FLUSH_POLL_S = 0.0005    # how often the old port's backlog at its switch is looked at while it empties (held
                         # packets wait meanwhile)


class MigrationError(AgentError):
    """A migration step failed; the NF was left on its old side (or, past the point of no return,
    on the new one), forwarding."""

    status = 500
    fault = "migrationFailed"


@dataclasses.dataclass
class MigrationReport:
    """What one migration did and how long each step took (seconds)."""

    server: str
    source: str
    target: str
    timings: dict[str, float] = dataclasses.field(default_factory=dict)
    state_bytes: int = 0
    flows: int = 0
    packets_moved: int = 0
    held_by_new: int = 0
    nf_losses: int = 0                 # packets the two NFs lost (not dropped by policy) in their lives
    retired_nf_losses: dict[str, int] = dataclasses.field(default_factory=dict)  # the old NF's, by place
    hold_packets: int = 0              # the new NF's hold, sized from the old NF's measured rate
    rollback_reason: str | None = None
    rolled_back: bool = False
    bound_exceeded: bool = False       # rolled back because a hold passed its bound (a starved host, not a
    # fault): the NF is where it was, nothing lost, and the orchestrator may try again later
    held_from: float | None = None     # wall-clock time the remap started (packets may reach the new NF)
    held_until: float | None = None    # ... and of the new NF's release
    remap_stages: dict[str, float] = dataclasses.field(default_factory=dict)  # OneSwitch's own stage times:
    # "add" (new entries, old path still in use), "switch" (traffic to the new NF), "drain" (markers)

    @property
    def held_window_s(self) -> float:
        """From the remap's start to the new NF's release: the most a packet can wait."""
        return sum(self.timings.get(step, 0.0) for step in ("quiesce", "state", "remap", "drain", "release"))

    def to_json(self) -> dict:
        return {**dataclasses.asdict(self), "held_window_s": self.held_window_s}


def _reused(journal: Journal) -> dict:
    """The spare a migration reuses when the server has one on its target side (see `begin`)."""
    return {"side": journal.target, "port": journal.new_port}


class HoldBoundExceeded(Conflict):
    """The new NF has held packets too long, or its hold is half full: roll back before anything is lost."""


def hold_packets(rate_pps: float) -> int:
    """The new NF's hold for a migration of an NF receiving `rate_pps`: twice what arrives in HOLD_BOUND_S."""
    return int(min(HOLD_MAX_PACKETS, max(HOLD_MIN_PACKETS, 2 * rate_pps * HOLD_BOUND_S)))


def check_hold(held: int, capacity: int, waited_s: float) -> None:
    """Raise HoldBoundExceeded when `held` packets (of `capacity`) that waited `waited_s` are past a bound."""
    if held > capacity // 2:
        raise HoldBoundExceeded(f"the new NF holds {held} packets, past half of its hold of {capacity}")
    if waited_s > HOLD_BOUND_S:
        raise HoldBoundExceeded(f"packets have waited {waited_s:.2f} s in the new NF's hold, past "
                                f"{HOLD_BOUND_S:g} s")


def _patiently(nf: NfControl, deadline: float, call: Callable[[], object]):
    """call(), made again while `nf`'s control channel is broken and comes back before `deadline` (monotonic): a
    restarting sNIC daemon, a management link down for a moment. A call whose lost reply makes repeating it
    unsafe (packets taken or injected) is not made again: ChannelBroken."""
    while True:
        try:
            return call()
        except ChannelBroken as exc:
            if not exc.retry_safe or time.monotonic() > deadline:
                raise
            log.warning("%s; trying again", exc)
        while True:
            time.sleep(RECONNECT_POLL_S)
            try:
                nf.reconnect()
                break
            except ChannelBroken:
                if time.monotonic() > deadline:
                    raise


def nf_loss_places(stats: dict) -> dict[str, int]:
    """Packets an NF lost rather than dropped by policy, by place: its receive ring (full, or a frame cut
    short), its hold buffer (full during a migration), its sends (the transmit ring full, or refused)."""
    return {"ring": stats.get("rx_kernel_drops", 0) + stats.get("rx_truncated", 0),
            "hold": stats.get("hold_drop", 0),
            "send": stats.get("tx_dropped", 0) + stats.get("tx_errors", 0)}


def nf_losses(stats: dict) -> int:
    """Packets an NF lost rather than dropped by policy: full buffers and rings, failed sends."""
    return sum(nf_loss_places(stats).values())


@dataclasses.dataclass
class _Run:
    """One migration under way: the server record as journalled, and the two NFs' control clients."""

    server: Server
    flavor: Flavor | None
    old: NfControl
    report: MigrationReport
    new: NfControl | None = None
    step: str = "start"                # the step running (the journal has the last journalled one)
    old_path_until: float | None = None  # the waits on the old NF's path end by then (unknown in a recovery)

    def close(self) -> None:
        self.old.close()
        if self.new is not None:
            self.new.close()


class Migrator:
    """Runs migrations, and finishes or undoes one an earlier agent left (`recover`).

    `on_step` is called as each step of a migration begins (not in a recovery): tests stop the
    agent there, and faults.FaultInjector injects failures through it and the parts it wraps.
    """

    def __init__(self, record: MigrationRecord, launcher: Launcher, portmap: PortMapper, *,
                 free_port: Callable[[], str], clock: Callable[[], float] = time.time,
                 nf_control: Callable[[str], NfControl] | None = None, on_step: Callable[[str], None] | None = None):
        self.record = record          # the migrating server's record: the only inventory writes a migration makes
        self.launcher = launcher
        self.portmap = portmap
        self.free_port = free_port
        self.clock = clock
        # an NF's control channel, by what start_nf returned (a fake in unit tests)
        self.nf_control = nf_control or launcher.nf_control
        self.on_step = on_step        # called as each step of a migration begins
        self.reports: collections.deque[MigrationReport] = collections.deque(maxlen=REPORTS_KEPT)
        # what each server's retired NF instances lost, by place: the live instance counts only its own life
        self.retired_losses: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)

    def migrate(self, server: Server, flavor: Flavor, target: str) -> Server:
        """Moves `server` to `target` now: begin, then run."""
        return self.run(self.begin(server, target), flavor)

    def begin(self, server: Server, target: str) -> Server:
        """Journals a migration of `server` to `target` (the server is MIGRATING from now on, and a
        restarted agent finishes or undoes it); `run` carries it out."""
        spare = server.spare if server.spare and server.spare["side"] == target else None
        journal = Journal(target=target, new_port=spare["port"] if spare else self.free_port(),
                          new_id=f"{server.id}-{int(self.clock() * 1000)}")
        return self.record.begin(server.id, journal)

    def run(self, server: Server, flavor: Flavor) -> Server:
        """Carries out the migration `begin` journalled; rolls back and raises MigrationError on failure."""
        target = Journal.of(server.migration).target
        try:
            old = self.nf_control(server.control)
        except (NfControlError, OSError) as exc:     # nothing started: it stays where it runs
            error = MigrationError(f"migration of {server.name} to {target} failed before it started: the NF "
                                   f"does not answer: {exc}; it stays on {server.side}")
            self.record.stayed(server.id, str(error))
            raise error from exc
        run = _Run(server, flavor, old, MigrationReport(server=server.id, source=server.side, target=target))
        try:
            self._steps(run, STEPS, self.on_step)
        except (AgentError, NfControlError, OSError) as exc:
            run.report.rolled_back = True
            run.report.rollback_reason = f"step '{run.step}': {exc}"
            run.report.bound_exceeded = isinstance(exc, HoldBoundExceeded)
            self.reports.append(run.report)
            error = MigrationError(f"migration of {server.name} to {target} failed at step "
                                   f"'{run.step}': {exc}; it stays on {run.report.source}")
            # the fault is written with the ACTIVE status: whoever sees the one sees the other
            self._roll_back(self.record.get(server.id), run.old, run.new, fault=str(error))
            raise error from exc
        finally:
            run.close()
        report = run.report
        self.reports.append(report)
        log.info("migrated %s %s -> %s in %.1f ms (held %.1f ms, %d flows, %d B state, %d packets moved)",
                 server.name, report.source, target, sum(report.timings.get(step, 0.0) for step in STEPS) * 1e3,
                 report.held_window_s * 1e3, report.flows, report.state_bytes, report.packets_moved)
        return run.server

    def _steps(self, run: _Run, steps: tuple[str, ...], on_step: Callable[[str], None] | None) -> None:
        """Runs `steps` in order, each timed in the report, those of JOURNALLED journalled first."""
        for step in steps:
            run.step = step
            if on_step is not None:  # before the journal: a crash there is one the journal does not show
                on_step(step)
            if step in JOURNALLED:
                run.server = self.record.journal(run.server.id, step=step)
            started = time.perf_counter()
            self._step(run, step)
            run.report.timings[step] = time.perf_counter() - started
            if run.report.held_from is not None and step not in ("release", "retire"):
                # the fill the new NF gave last (its answer to the state import; none before)
                check_hold(run.new.last_held, run.report.hold_packets, self.clock() - run.report.held_from)

    def _step(self, run: _Run, step: str) -> None:
        old, new, report, journal = run.old, run.new, run.report, Journal.of(run.server.migration)
        if step == "start":
            report.hold_packets = hold_packets(self._rate(old))
            run.new = self._start(run.server, run.flavor, report.hold_packets)
            run.server = self.record.get(run.server.id)
            self._check_alive(run.new, "the new NF")
        elif step == "remap":
            report.held_from = self.clock()
            remapped = self.portmap.remap(run.server.vport, journal.target, journal.new_port)
            report.remap_stages = remapped.stages
            # a rollback must remap back before OneSwitch deletes the old port's entries (none kept: an operator's
            # remap_grace 0, or no change; the waits then have HOLD_BOUND_S only)
            kept = remapped.old_entries_kept_s
            run.old_path_until = report.held_from + kept - min(OLD_PATH_MARGIN_S, kept / 2) if kept > 0 else None
        elif step == "drain":
            self._move(old, new, QUIET_S)
        elif step == "quiesce":
            old.buffer_start()
        elif step == "state":
            started = time.perf_counter()
            blob = old.state_get()
            got = time.perf_counter()
            report.flows = new.state_put(blob, replace=True)
            # the NFs time their own (de)serialisation; the rest of the two calls is transfer
            report.timings["serialise"] = old.last_nf_seconds
            report.timings["deserialise"] = new.last_nf_seconds
            report.timings["transfer"] = (time.perf_counter() - started - old.last_nf_seconds
                                          - new.last_nf_seconds)
            report.timings["state_get_call"] = got - started
            report.state_bytes = len(blob)
        elif step == "release":
            self._flush(run.server, run.old_path_until)
            started = time.perf_counter()
            # a part of the release; OneSwitch's own share of it (its markers) beside
            report.timings["links_drain_markers"] = self._drain_links(run.server.side, run.old_path_until)
            report.timings["links_drain"] = time.perf_counter() - started
            report.packets_moved = self._move(old, new, 0.0)
            report.held_by_new = new.buffer_release()
            report.held_until = self.clock()
        elif step == "retire":
            # Past the release the new NF processes and the move stands: nothing here may roll it back.
            try:
                retired = nf_loss_places(old.stats())
                report.nf_losses = sum(retired.values()) + nf_losses(new.stats())
            except (NfControlError, OSError) as exc:
                log.warning("migration of %s: the NFs' loss counters cannot be read: %s", run.server.name, exc)
                retired = {}
            report.retired_nf_losses = retired
            self.retired_losses[run.server.id].update(retired)
            run.server = self._retire(run.server)

    @staticmethod
    def _rate(nf: NfControl) -> float:
        """Packets per second `nf` receives, measured over RATE_SAMPLE_S."""
        before, started = nf.stats()["rx"], time.perf_counter()
        time.sleep(RATE_SAMPLE_S)
        return (nf.stats()["rx"] - before) / (time.perf_counter() - started)

    def _start(self, server: Server, flavor: Flavor, hold: int) -> NfControl:
        journal = Journal.of(server.migration)
        instance = self.launcher.start_nf(journal.new_id, flavor.binary, journal.target,
                                          journal.new_port, server.config.get("nf_config"), hold_packets=hold)
        self.record.journal(server.id, new_pid=instance.pid, new_pid_start=instance.pid_start,
                      new_control=instance.control, new_netns=instance.netns)
        return self.nf_control(instance.control)

    @staticmethod
    def _released(new: NfControl | None) -> bool:
        """Whether the new NF was released: it holds from its start until the release, and only that ends it."""
        try:
            return new is not None and not new.stats()["buffering"]
        except (NfControlError, OSError):
            return False  # gone: the migration cannot finish, and the steps from the drain find out

    @staticmethod
    def _check_alive(ctl: NfControl, what: str) -> None:
        try:
            ctl.ping()
        except (NfControlError, OSError) as exc:
            raise Conflict(f"{what} does not answer: {exc}") from None

    @staticmethod
    def _drain(nf: NfControl, quiet_s: float, deliver: Callable[[list], object]) -> int:
        """Hand what `nf` holds to `deliver` until it answers that it holds nothing and has received
        nothing for `quiet_s`; returns how many packets it handed.

        The NF reads its ports before answering each request, so its `idle_us` says for how long it
        has read nothing, the quiet time that passed during the remap included: after a remap one
        request usually settles it (between the switch-over and the release, where held packets wait)."""
        deadline = time.monotonic() + DRAIN_TIMEOUT_S
        handed = 0
        stats = nf.stats()
        while stats["buffered"] or stats["idle_us"] < quiet_s * 1e6:
            if time.monotonic() > deadline:
                raise Conflict(f"an NF still receives packets {DRAIN_TIMEOUT_S:g} s after the remap")
            if stats["buffered"]:
                packets = nf.buffer_take()     # one take at a time: each is delivered before the next may fail
                deliver(packets)
                handed += len(packets)
            else:
                time.sleep(quiet_s / 5)
            stats = nf.stats()
        return handed

    def _old_path_deadline(self, until: float | None) -> float:
        """The latest a step that needs the old NF's path may end: HOLD_BOUND_S from now, and `until`."""
        deadline = self.clock() + HOLD_BOUND_S
        return deadline if until is None else min(deadline, until)

    def _flush(self, server: Server, until: float | None) -> None:
        """Wait until the old NF's switch has read everything the old NF sent (past `_old_path_deadline`: roll
        back)."""
        deadline = self._old_path_deadline(until)
        while (backlog := self.launcher.switch_backlog(server.side, server.port)) > 0:
            if self.clock() > deadline:
                raise HoldBoundExceeded(f"the {server.side} switch has not read {backlog} bytes the old NF sent "
                                        f"in time (HOLD_BOUND_S {HOLD_BOUND_S:g} s, or before the old path goes)")
            time.sleep(FLUSH_POLL_S)

    def _drain_links(self, side: str, until: float | None) -> float:
        """Wait until what the old NF's switch sent over its PCIe links has been forwarded by the other switches
        (past `_old_path_deadline`: roll back); returns OneSwitch's time for it. Its last packets may still be on
        a link, or in the next switch's receive buffer, when the new NF's first reach the same exit by a shorter
        way."""
        timeout = self._old_path_deadline(until) - self.clock()
        if timeout <= 0 or not (drained := self.portmap.drain_from(side, timeout)).drained:
            raise HoldBoundExceeded(f"what the {side} switch sent over its links was not through in time")
        return drained.elapsed_s

    def _move(self, old: NfControl, new: NfControl, quiet_s: float) -> int:
        """Move the old NF's held packets into the new one (ahead of its own); returns how many."""
        return self._drain(old, quiet_s, new.inject)

    def _retire(self, server: Server) -> Server:
        """The old NF stops; its port stays plugged as the server's spare, for its return (removing a port
        stalls a userspace datapath's forwarding for milliseconds). One spare per server: one it had on a third
        side goes."""
        journal = Journal.of(server.migration)
        self.launcher.publish(server.id, journal.new_control)
        try:
            self.launcher.stop(server.instance, "nf", server.side, server.port, server.pid, server.pid_start,
                               keep_port=True)
        except AgentError as exc:    # its side is out of reach: the NF is idle there, its port unmapped
            log.error("migration of %s: the old NF %s on %s cannot be stopped: %s", server.name, server.instance,
                      server.side, exc)
        self.launcher.forget(server.instance)
        spare = {"side": server.side, "port": server.port}
        replaced = server.spare if server.spare not in (None, spare, _reused(journal)) else None
        moved = self.record.moved(server.id, journal, at=self.clock(), spare=spare)
        if replaced is not None:
            self.launcher.remove_port(replaced["side"], replaced["port"])
        return moved

    def _roll_back(self, server: Server, old: NfControl, new: NfControl | None, fault: str | None = None) -> None:
        """Put the NF back on its old side, forwarding, with every packet processed once and in order.

        The old NF holds while the port moves back. What it held before (stragglers, sent before
        the switch-over) goes first, then what the new NF held, both ahead of what the old NF
        receives after the remap back. Best effort at every step: a part that does not answer is
        logged and the rest still runs.
        """
        journal = Journal.of(server.migration)
        deadline = time.monotonic() + ROLLBACK_PATIENCE_S
        stragglers: list = []
        try:
            _patiently(old, deadline, lambda: (old.buffer_start(), old.buffer_take_all(stragglers)))
        except (NfControlError, OSError) as exc:
            log.error("rollback of %s: the old NF does not answer: %s", server.name, exc)
        if journal.moved():
            self._remap_back(server, deadline)
        held: list = []
        if new is not None:
            try:
                _patiently(new, deadline, lambda: self._drain(new, QUIET_S, held.extend))
            except (AgentError, NfControlError, OSError) as exc:
                log.error("rollback of %s: cannot take back what the new NF holds: %s", server.name, exc)
        if stragglers or held:
            try:
                _patiently(old, deadline, lambda: old.inject(stragglers + held))
            except (NfControlError, OSError) as exc:
                log.error("rollback of %s: %d packets held during the migration may be lost: %s", server.name,
                          len(stragglers) + len(held), exc)
        try:     # whatever happened to the packets, the old NF must process again
            _patiently(old, deadline, old.buffer_release)
        except (NfControlError, OSError) as exc:
            log.error("rollback of %s: the old NF does not answer; it may still hold: %s", server.name, exc)
        try:
            self.launcher.stop(journal.new_id, "nf", journal.target, journal.new_port, journal.new_pid,
                               journal.new_pid_start, keep_port=server.spare == _reused(journal))
        except AgentError as exc:    # its side is unreachable: recovery or an operator stops it later
            log.error("rollback of %s: cannot stop the new NF %s: %s", server.name, journal.new_id, exc)
        self.launcher.forget(journal.new_id)
        self.record.stayed(server.id, fault)

    def _remap_back(self, server: Server, deadline: float) -> None:
        """Point the virtual port at the old port again, if the remap took effect; tried again until `deadline`
        (monotonic) while OneSwitch cannot (a switch behind a management link that is down)."""
        while True:
            try:
                if self.portmap.mappings().get(server.vport) != (server.side, server.port):
                    self.portmap.remap(server.vport, server.side, server.port)
                return
            except AgentError as exc:
                if time.monotonic() > deadline:
                    log.error("rollback of %s: cannot remap virtual port %s back: %s", server.name, server.vport,
                              exc)
                    return
                log.warning("rollback of %s: remapping virtual port %s back: %s; trying again", server.name,
                            server.vport, exc)
                time.sleep(RECONNECT_POLL_S)

    def recover(self, server: Server) -> Server:
        """Finish or undo a migration the agent was running when it stopped."""
        if server.migration is None:  # MIGRATING, but nothing was journalled: nothing started
            return self.record.stayed(server.id)
        journal = Journal.of(server.migration)
        old = self.nf_control(server.control)
        try:
            new = self.nf_control(journal.new_control) if journal.new_control else None
        except BaseException:
            old.close()
            raise
        try:
            steps = recovery_steps(journal, self.portmap.mappings().get(server.vport), self._released(new))
            if steps is not None:
                run = _Run(server, None, old, MigrationReport(server=server.id, source=server.side,
                                                              target=journal.target), new)
                self._steps(run, steps, None)
                server = run.server
                log.info("recovered migration of %s: finished on %s", server.name, server.side)
            else:
                self._roll_back(server, old, new)
                server = self.record.get(server.id)
                log.info("recovered migration of %s: undone, stays on %s", server.name, server.side)
        finally:
            old.close()
            if new is not None:
                new.close()
        return server
