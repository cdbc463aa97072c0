"""Test doubles for the agent's parts, after Faucet's fake tables and OVS's dummy datapath: an NF, the
traffic of one virtual port, OneSwitch's port map and a launcher, all in memory. The migration runs
against them unchanged, so its decisions (steps, rollback, recovery) are tested without root.

The model keeps what makes a migration loss-free or not: packets of one numbered stream go to the NF
the virtual port is mapped to, into its receive ring; an NF reads its ring whenever it answers a
request (as the C NFs do), and processes what it read or, while buffering, holds it. What an NF sends
goes on once its switch reads it: at once, or, for a port of `Traffic.slow_ports` (a busy switch), only
when someone looks at that port's backlog; a port removed before is read no more. Every packet that
goes on is logged once, globally, so a test sees loss, duplication and reordering directly.
"""
from __future__ import annotations

import dataclasses
import struct
import time

from uno_agent.errors import Conflict
from uno_agent.faults import FaultInjector
from uno_agent.inventory import Inventory, Server
from uno_agent.launcher import Instance, LaunchError
from uno_agent.migration import Migrator
from uno_agent.migration_record import MigrationRecord
from uno_agent.oneswitch import Drained, Remapped
from uno_nfs import ChannelBroken, NfControlError

STATE_MAGIC = b"FNF1"
TAKE_PACKETS = 16384            # a take returns this many held packets at most (a real one ~64 KiB of them); the
                                # model's cost per request grows with the surge tests' traffic, so takes are large


class Traffic:
    """One virtual port's packets: sequence numbers, each sent to the NF the port map points at."""

    def __init__(self, portmap: FakePortMapper, vport: int, per_request: int = 3, stragglers: int = 0):
        self.portmap, self.vport, self.per_request = portmap, vport, per_request
        self.nfs: dict[tuple[str, str], FakeNf] = {}   # (side, port) -> the NF on that port
        self.sent = 0
        self.processed: list[int] = []                 # every packet an NF sent that its switch read, in order
        self.stragglers = stragglers                   # packets still on their way to the old NF at a remap
        self.on_the_way: tuple[FakeNf | None, list[int]] = (None, [])
        self.slow_ports: set[tuple[str, str]] = set()  # (side, port) whose switch reads only when asked
        portmap.on_remap = self.strand

    def strand(self) -> None:
        """At a remap's switch-over: the last packets sent to the old NF are still on their way to it."""
        nf = self.nfs.get(self.portmap.ports.get(self.vport))
        seqs = list(range(self.sent + 1, self.sent + 1 + self.stragglers))
        self.sent += self.stragglers
        self.on_the_way = (nf, seqs)

    def arrive(self) -> None:
        """The packets on their way to the old NF reach its receive ring now."""
        nf, seqs = self.on_the_way
        if nf is not None and nf.alive:
            nf.ring.extend(seqs)
        self.on_the_way = (None, [])

    def read(self, where: tuple[str, str]) -> int:
        """The switch reads what the NF on `where` sent and not read yet; returns how many packets that was."""
        nf = self.nfs.get(where)
        if nf is None:
            return 0
        unread, nf.unread = nf.unread, []
        self.processed.extend(unread)
        return len(unread)

    def tick(self) -> None:
        """Time passes: the switches read what the NFs sent (but on slow ports), and `per_request` more
        packets arrive where the port is mapped now."""
        for port in list(self.nfs):
            if port not in self.slow_ports:
                self.read(port)
        where = self.portmap.ports.get(self.vport)
        nf = self.nfs.get(where)
        for _ in range(self.per_request):
            self.sent += 1
            if nf is not None and nf.alive:
                nf.ring.append(self.sent)


class FakeNf:
    """An NF's control channel and its packet path (see the module's docstring)."""

    def __init__(self, traffic: Traffic, *, hold_packets: int | None = None):
        self.traffic = traffic
        self.ring: list[int] = []
        self.unread: list[int] = []     # processed and sent, not read by the switch yet
        self.buffering = hold_packets is not None
        self.held: list[int] = []
        self.count = 0                  # the state: packets processed by this NF or its predecessors
        self.rx = 0
        self.last_rx = time.monotonic()
        self.alive = True
        self.refuse_state = False
        self.last_nf_seconds = 0.0
        self.last_held = 0
        self.last_remaining = 0
        self.broken = False             # the channel to it broke (its sNIC daemon died): calls fail until reconnect
        self.refused = 0                # reconnects refused before one succeeds (the daemon restarting)
        self.lose_reply: str | None = None   # the next call of this name is carried out, but its reply is lost

    # the packet path
    def _serve(self) -> None:
        if self.broken:
            raise ChannelBroken("ECONNRESET", "connection closed", retry_safe=True)
        if not self.alive:
            raise NfControlError("GONE", "the NF does not answer")
        self.traffic.tick()
        if self.ring:
            self.rx += len(self.ring)
            self.last_rx = time.monotonic()
            got, self.ring = self.ring, []
            if self.buffering:
                self.held.extend(got)
            else:
                self._process(got)

    def _process(self, packets: list[int]) -> None:
        self.count += len(packets)
        self.unread.extend(packets)

    # NfControl's calls
    def ping(self) -> bool:
        self._serve()
        return True

    def stats(self) -> dict:
        self._serve()
        return {"rx": self.rx, "idle_us": int((time.monotonic() - self.last_rx) * 1e6), "buffered": len(self.held),
                "buffering": self.buffering}

    def buffer_start(self) -> int:
        self._serve()
        self.buffering = True
        return 0

    def buffer_take(self) -> list[int]:
        """Up to TAKE_PACKETS held packets, the number left in last_remaining."""
        self._serve()
        taken, self.held = self.held[:TAKE_PACKETS], self.held[TAKE_PACKETS:]
        self.last_remaining = len(self.held)
        return taken

    def buffer_take_all(self, into: list) -> list[int]:
        into += self.buffer_take()
        while self.last_remaining:
            into += self.buffer_take()
        return into

    def reconnect(self) -> None:
        if self.refused:
            self.refused -= 1
            raise ChannelBroken("ECONNREFUSED", "the daemon is restarting", retry_safe=True)
        self.broken = False

    def inject(self, packets: list[int]) -> int:
        """Packets handed over go ahead of what this NF holds (they were sent earlier)."""
        self._serve()
        self.held = list(packets) + self.held
        if self.lose_reply == "inject":
            self.lose_reply, self.broken = None, True
            raise ChannelBroken("ECONNRESET", "inject: timed out", retry_safe=False)
        return len(packets)

    def buffer_release(self) -> int:
        self._serve()
        released, self.held = self.held, []
        self.buffering = False
        self._process(released)
        return len(released)

    def state_get(self) -> bytes:
        self._serve()
        return STATE_MAGIC + struct.pack("!Q", self.count)

    def state_put(self, blob: bytes, replace: bool = False) -> int:
        self._serve()
        if self.refuse_state or blob[:4] != STATE_MAGIC:
            raise NfControlError("BAD_STATE", "the state does not decode")
        self.count = struct.unpack("!Q", blob[4:12])[0]
        self.last_held = len(self.held)
        return 1

    def close(self) -> None:
        pass


class FakePlatform:
    """A platform description with a host and one sNIC, nothing else."""

    description = {"switches": [{"id": "host"}, {"id": "snic0"}], "vms": []}


class FakePortMapper:
    """OneSwitch's /v1/ports: virtual port -> (switch, port); `refuse` makes remaps fail as OneSwitch's 409, and
    `unreachable` makes that many fail as OneSwitch's 503 (a switch it cannot reach for now)."""

    def __init__(self):
        self.ports: dict[int, tuple[str, str]] = {}
        self.refuse = False
        self.unreachable = 0
        self.remaps = 0
        self.on_remap = None  # called at the switch-over (Traffic strands packets on the old path)
        self.drains_lost = False      # drain markers never come back (a switch gone mid-migration)
        self.old_entries_kept_s = 5.0  # OneSwitch's remap_grace

    def mappings(self) -> dict[int, tuple[str, str]]:
        return dict(self.ports)

    def remap(self, vport: int, switch_id: str, port: str) -> Remapped:
        if self.refuse:
            raise Conflict(f"OneSwitch refused PUT /v1/ports/{vport}: no port {port} on {switch_id}")
        if self.unreachable:
            self.unreachable -= 1
            raise Conflict(f"OneSwitch: PUT /v1/ports/{vport}: 503 {switch_id} did not answer in time")
        if self.on_remap is not None:
            self.on_remap()
        self.ports[vport] = (switch_id, port)
        self.remaps += 1
        return Remapped({"add": 0.0, "switch": 0.0, "drain": 0.0}, self.old_entries_kept_s)

    def drain_from(self, switch_id: str, timeout_s: float) -> Drained:
        return Drained(not self.drains_lost, 0.0)


@dataclasses.dataclass
class FakeLauncher:
    """Starts fake NFs on the traffic's ports; control paths name them. `fail_start` refuses a start."""

    traffic: Traffic
    fail_start: bool = False
    controls: dict[str, FakeNf] = dataclasses.field(default_factory=dict)
    stopped: list[str] = dataclasses.field(default_factory=list)
    published: dict[str, str] = dataclasses.field(default_factory=dict)
    stuck_ports: set[tuple[str, str]] = dataclasses.field(default_factory=set)  # their switch never reads them
    kept_ports: set[tuple[str, str]] = dataclasses.field(default_factory=set)   # stopped with keep_port, not removed
    out_of_reach: set[str] = dataclasses.field(default_factory=set)   # sides that cannot be asked now

    def reachable(self, side: str) -> bool:
        return side not in self.out_of_reach

    def start_nf(self, instance_id: str, binary: str, side: str, port: str, config_text: str | None, *,
                 hold_packets: int | None = None) -> Instance:
        if self.fail_start:
            raise LaunchError(f"{binary} did not start: no room on {side}")
        nf = FakeNf(self.traffic, hold_packets=hold_packets)
        control = f"fake:{instance_id}"
        self.controls[control] = nf
        self.traffic.nfs[(side, port)] = nf
        return Instance(pid=None, pid_start=None, port=port, control=control)

    def stop(self, instance_id: str, kind: str, side: str | None, port: str | None, pid: int | None,
             pid_start: int | None, *, keep_port: bool = False) -> None:
        self.stopped.append(instance_id)
        nf = self.controls.get(f"fake:{instance_id}")
        if nf is not None:
            nf.alive = False
        self.traffic.nfs.pop((side, port), None)
        if side and port:
            (self.kept_ports.add if keep_port else self.kept_ports.discard)((side, port))

    def remove_port(self, side: str, port: str) -> None:
        self.kept_ports.discard((side, port))

    def switch_backlog(self, side: str, port: str) -> int:
        """A slow switch reads the port when asked (between two looks); a stuck one never does."""
        nf = self.traffic.nfs.get((side, port))
        backlog = len(nf.unread) if nf is not None else 0
        if (side, port) not in self.stuck_ports:
            self.traffic.read((side, port))
        return backlog

    def nf_control(self, control: str) -> FakeNf:
        return self.controls[control]

    def alive(self, instance_id: str, kind: str, pid: int | None, pid_start: int | None,
              netns: str | None = None, *, side: str | None = None) -> bool:
        nf = self.controls.get(f"fake:{instance_id}")
        return nf is not None and nf.alive

    def publish(self, server_id: str, control: str) -> None:
        self.published[server_id] = control

    def forget(self, instance_id: str) -> None:
        pass


VPORT = 5


class World:
    """One NF on the host's port nfh0, mapped to virtual port 5, with its traffic flowing."""

    def __init__(self, tmp_path):
        self.inventory = Inventory(tmp_path / "inventory.db")
        self.portmap = FakePortMapper()
        self.traffic = Traffic(self.portmap, VPORT)
        self.launcher = FakeLauncher(self.traffic)
        first = self.launcher.start_nf("nf1-0", "monitor", "host", "nfh0", None)
        self.portmap.ports[VPORT] = ("host", "nfh0")
        self.inventory.add(Server(id="nf1", name="mon", flavor="monitor", kind="nf", status="ACTIVE", created_at=0.0,
                                  side="host", vport=VPORT, port="nfh0", instance="nf1-0", control=first.control))
        self._ports = iter(f"nfp{i}" for i in range(100))

    def migrator(self, faults: dict[str, str] | None = None, **kwargs) -> Migrator:
        """A migrator over the fakes; with `faults`, through a FaultInjector as the daemon builds it."""
        if not faults:
            return Migrator(MigrationRecord(self.inventory), self.launcher, self.portmap,
                            free_port=lambda: next(self._ports), nf_control=self.launcher.controls.__getitem__,
                            **kwargs)
        injector = FaultInjector(faults)
        return Migrator(MigrationRecord(self.inventory), injector.launcher(self.launcher),
                        injector.portmap(self.portmap), free_port=lambda: next(self._ports),
                        nf_control=injector.nf_control(self.launcher.controls.__getitem__),
                        on_step=injector.on_step, **kwargs)

    @property
    def server(self) -> Server:
        return self.inventory.get("nf1")

    def live_nf(self):
        return self.launcher.controls[self.server.control]

    def assert_lossless_and_running(self, side: str) -> None:
        """The NF runs on `side` where the port is mapped, has processed every packet that reached an NF once
        and in order, and its state counts them all; more traffic is processed too."""
        server = self.server
        assert server.status == "ACTIVE" and server.migration is None and server.side == side
        assert self.portmap.ports[VPORT] == (side, server.port)
        nf = self.live_nf()
        for _ in range(3):
            nf.ping()
        self.traffic.read((side, server.port))
        processed = self.traffic.processed
        assert processed == list(range(1, len(processed) + 1)), "lost, duplicated or reordered"
        assert len(processed) >= self.traffic.sent - self.traffic.per_request, "only the last arrivals may wait"
        assert nf.count == len(processed), "the state reflects every packet"
