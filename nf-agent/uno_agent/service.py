"""The agent's service layer: create, delete, migrate and place VMs and NFs.

Each operation is a short sequence of steps over the platform (ports, VMs), the
launcher (NF processes), OneSwitch (virtual ports) and the placement solver; the
inventory is updated before each step so a crash leaves a record of what may
exist, and a failed step undoes the ones before it. Mutations are serialised by
one lock; reads are lock-free.
"""
from __future__ import annotations

import collections
import concurrent.futures
import logging
import threading
import time
import uuid
from collections.abc import Callable

from uno_agent.catalog import Flavor
from uno_agent.errors import AgentError, BadRequest, Conflict, NotFound, Unavailable
from uno_agent.flows import dump_virtual_flows, pair_counters
from uno_agent.inventory import Inventory, Server
from uno_agent.launcher import Launcher, vm_index
from uno_agent.migration import nf_loss_places
from uno_agent.migration_steps import JournalError
from uno_agent.monitor import Edge, TrafficMatrix
from uno_agent.oneswitch import PortMapper
from uno_agent.placement import Decision, Placer, port_node
from uno_agent.port_names import free_nf_port
from uno_nfs import NfControlError
from uno_platform.base import Platform
from uno_platform.errors import PlatformError

log = logging.getLogger(__name__)


class AgentService:
    """What the API and the monitor call; owns the inventory's consistency with the world."""

    def __init__(self, *, platform: Platform, inventory: Inventory, flavors: dict[str, Flavor],
                 launcher: Launcher, portmap: PortMapper, placer: Placer,
                 traffic: TrafficMatrix, flows_target: str, migrator=None,
                 clock: Callable[[], float] = time.time):
        self.platform = platform
        self.inventory = inventory
        self._flavors = flavors
        self.launcher = launcher
        self.portmap = portmap
        self.placer = placer
        self.traffic_matrix = traffic
        self.flows_target = flows_target
        self.migrator = migrator
        self.clock = clock
        self._lock = threading.RLock()
        # Migrations run here, one at a time, outside the lock: the migrate action answers at once (Nova's
        # 202), and the server's status and /v2.1/uno/migrations say how it goes.
        self._migrations = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="migration")
        self._decision: Decision | None = None
        self.counters = {"created": 0, "deleted": 0, "migrations": 0, "migration_failures": 0,
                         "placements": 0}

    # -- reads ---------------------------------------------------------------------------

    def flavors(self) -> list[Flavor]:
        return sorted(self._flavors.values(), key=lambda f: f.id)

    def flavor(self, flavor_id: str) -> Flavor:
        try:
            return self._flavors[flavor_id]
        except KeyError:
            raise NotFound(f"flavor {flavor_id!r} does not exist") from None

    def servers(self) -> list[Server]:
        return self.inventory.list()

    def server(self, server_id: str) -> Server:
        server = self.inventory.get(server_id)
        if server is None:
            raise NotFound(f"server {server_id!r} does not exist")
        return server

    def switch_ids(self) -> list[str]:
        return [sw["id"] for sw in self.platform.description["switches"]]

    # -- create / delete -----------------------------------------------------------------

    def create_server(self, *, name: str, flavor_id: str, pin: str | None = None,
                      expected_gbps: float = 0.0, nf_config: str | None = None) -> Server:
        flavor = self._flavors.get(flavor_id)
        if flavor is None:
            raise BadRequest(f"flavorRef {flavor_id!r} does not exist")
        if pin is not None:
            self._check_side(flavor, pin)
        if flavor.kind == "vm" and nf_config is not None:
            raise BadRequest("uno:nf_config is for NFs, not VMs")
        if flavor.kind == "nf":
            self.launcher.check_config(flavor.binary, nf_config)
        with self._lock:
            if any(s.name == name for s in self.inventory.list()):
                raise Conflict(f"a server named {name!r} exists already")
            server = Server(id=str(uuid.uuid4()), name=name, flavor=flavor.id, kind=flavor.kind,
                            status="BUILD", created_at=self.clock(), pin=pin,
                            config={"expected_gbps": expected_gbps, "nf_config": nf_config})
            self.inventory.add(server)
            try:
                if flavor.kind == "vm":
                    server = self._build_vm(server)
                else:
                    server = self._build_nf(server, flavor, expected_gbps, nf_config)
            except BaseException:
                self._teardown(self.inventory.get(server.id))
                self.inventory.delete(server.id)
                raise
            self.counters["created"] += 1
            log.info("created %s %s (%s) on %s, virtual port %s", flavor.kind, name, server.id,
                     server.side, server.vport)
            return server

    def _check_side(self, flavor: Flavor, side: str) -> None:
        if side not in self.switch_ids():
            raise BadRequest(f"{side!r} is not a side of this server (have {', '.join(self.switch_ids())})")
        role = "host" if side == "host" else "snic"
        if getattr(flavor, role) is None:
            raise BadRequest(f"flavor {flavor.id!r} cannot run on {side}")
        switch = next(sw for sw in self.platform.description["switches"] if sw["id"] == side)
        if not switch.get("nf_capable", True):
            raise BadRequest(f"{side} is a {switch.get('model', 'sNIC')} sNIC: it runs no NFs")

    def _build_vm(self, server: Server) -> Server:
        used = {int(vm["id"][2:]) for vm in self.platform.description["vms"]}
        used |= {vm_index(s.port) for s in self.inventory.list() if s.kind == "vm" and s.port}
        index = next(i for i in range(10_000) if i not in used)
        server = self.inventory.update(server.id, side="host", port=f"{self.platform.prefix}vm{index}",
                                       instance=f"{server.id}-0")
        vm = self.launcher.start_vm(server.instance, index)
        server = self.inventory.update(server.id, port=vm.port, netns=vm.netns, ip=vm.ip, mac=vm.mac,
                                       pid=vm.pid, pid_start=vm.pid_start)
        vport = self.portmap.add("host", vm.port)
        return self.inventory.update(server.id, vport=vport, status="ACTIVE")

    def _build_nf(self, server: Server, flavor: Flavor, expected_gbps: float,
                  nf_config: str | None) -> Server:
        decision = self.placer.place_new(self.inventory.list(), server, expected_gbps,
                                         self.traffic_matrix.rates(), now=self.clock())
        side = decision.servers[server.id]
        self._record_decision(decision)
        port = free_nf_port(self.inventory, self.platform.prefix)
        server = self.inventory.update(server.id, side=side, port=port, instance=f"{server.id}-0")
        nf = self.launcher.start_nf(server.instance, flavor.binary, side, server.port, nf_config)
        server = self.inventory.update(server.id, pid=nf.pid, pid_start=nf.pid_start, control=nf.control,
                                       netns=nf.netns)
        self.launcher.publish(server.id, nf.control)
        vport = self.portmap.add(side, server.port)
        return self.inventory.update(server.id, vport=vport, status="ACTIVE")

    def delete_server(self, server_id: str) -> None:
        with self._lock:
            server = self.server(server_id)
            if server.status == "MIGRATING":
                raise Conflict(f"server {server.name!r} is migrating")
            # Recorded before anything is torn down: if the inventory cannot be written (a full disk), the
            # request fails with nothing changed; if it fails after the teardown, the server stays DELETING,
            # and a DELETE again or the next start of the agent finishes it.
            self.inventory.update(server_id, status="DELETING")
            self._teardown(server)
            self.inventory.delete(server_id)
            self.launcher.forget(server.instance)
            self.launcher.unpublish(server_id)
            self.counters["deleted"] += 1
            log.info("deleted %s %s (%s)", server.kind, server.name, server_id)

    def _teardown(self, server: Server | None) -> None:
        """Undo whatever of `server` exists, newest first; tolerant of missing parts."""
        if server is None:
            return
        if server.vport is not None:
            self.portmap.remove(server.vport)
        if server.instance is not None:
            self.launcher.stop(server.instance, server.kind, server.side, server.port, server.pid,
                               server.pid_start)
        if server.spare is not None:
            self.launcher.remove_port(server.spare["side"], server.spare["port"])

    # -- migration and placement ---------------------------------------------------------

    def migrate(self, server_id: str, target: str | None, *, trigger: str) -> Server:
        """Nova's migrate action: checked and journalled now (the server is MIGRATING from here on, and a
        restarted agent finishes or undoes it), carried out in the background, one migration at a time.
        A failure rolls back; the server is ACTIVE on its old side again, with a fault that says why."""
        with self._lock:
            server = self.server(server_id)
            flavor = self.flavor(server.flavor)
            if server.kind != "nf":
                raise Conflict("only NFs migrate; VMs stay on the host")
            if server.status != "ACTIVE":
                raise Conflict(f"server {server.name!r} is {server.status}, not ACTIVE")
            if target is None:
                target = "host" if server.side != "host" else self._default_snic()
            self._check_side(flavor, target)
            if server.pin is not None and server.pin != target:
                raise Conflict(f"server {server.name!r} is pinned to {server.pin}")
            if target == server.side:
                raise Conflict(f"server {server.name!r} already runs on {target}")
            if self.migrator is None:
                raise Conflict("migration is not available in this agent")
            started = self.migrator.begin(server, target)
        self._migrations.submit(self._carry_out, started, flavor, trigger)
        return started

    def _carry_out(self, server: Server, flavor: Flavor, trigger: str) -> None:
        """Runs a migration `migrate` began (on the migration thread)."""
        try:
            moved = self.migrator.run(server, flavor)
        except AgentError as exc:  # rolled back: the server is ACTIVE again, with the fault
            self.counters["migration_failures"] += 1
            log.warning("migration of %s (%s) failed: %s", server.name, trigger, exc)
            return
        except Exception:  # the thread must go on with the next migration; recovery at restart sorts it out
            log.exception("migration of %s (%s) stopped on an unexpected error", server.name, trigger)
            return
        self.counters["migrations"] += 1
        log.info("migrated %s from %s to %s (%s)", server.name, server.side, moved.side, trigger)

    def close(self) -> None:
        """Lets a migration under way finish; those only begun are undone by the next start's recovery."""
        self._migrations.shutdown(wait=True, cancel_futures=True)

    def migrations(self) -> list[dict]:
        """Reports of the recent migrations, newest last (steps and their seconds, state size)."""
        return [] if self.migrator is None else [r.to_json() for r in self.migrator.reports]

    def _default_snic(self) -> str:
        return next(s for s in self.switch_ids() if s != "host")

    def placement(self) -> dict:
        if self._decision is None:
            return {"status": "none", "objective": None, "decided_at": None, "trigger": None,
                    "servers": {s.id: s.side for s in self.inventory.list() if s.side}}
        return self._decision.to_json()

    def _record_decision(self, decision: Decision) -> None:
        self._decision = decision
        self.counters["placements"] += 1

    def reoptimize(self, *, apply: bool, trigger: str) -> dict:
        """Re-run placement on the measured traffic; with `apply`, migrate what it moves."""
        with self._lock:
            decision = self.placer.reoptimize(self.inventory.list(), self.traffic_matrix.rates(),
                                              now=self.clock(), trigger=trigger)
            self._record_decision(decision)
            if apply:
                for server_id, side in decision.moves.items():
                    try:
                        self.migrate(server_id, side, trigger=trigger)
                    except Conflict as exc:  # e.g. still migrating from an earlier decision
                        log.info("placement (%s): not moving %s: %s", trigger, server_id, exc)
            return decision.to_json()

    def read_counters(self) -> dict[Edge, int]:
        """Bytes between pairs of nodes so far, from the virtual rules' counters (for the monitor)."""
        owner = {vport: port_node(switch, port) for vport, (switch, port) in self.portmap.mappings().items()}
        owner.update({s.vport: s.id for s in self.inventory.list() if s.vport is not None})
        return pair_counters(dump_virtual_flows(self.flows_target), owner)

    # -- views -----------------------------------------------------------------------------

    def traffic(self) -> dict:
        names = {s.id: s.name for s in self.inventory.list()}
        edges = [{"from": names.get(a, a), "to": names.get(b, b), "gbps": rate}
                 for (a, b), rate in sorted(self.traffic_matrix.rates().items())]
        nodes = {names.get(n, n): rate for n, rate in sorted(self.traffic_matrix.node_rates().items())}
        return {"updated": self.traffic_matrix.updated, "edges": edges, "servers": nodes}

    def losses(self) -> dict:
        """Packets lost and where: each NF's (nf_losses) and every place the platform counts (shapers, bridge
        ports, datapaths, packet sockets, other interfaces)."""
        return {"nfs": self.nf_losses(), "platform": self.platform.status(losses=True)["losses"]}

    def nf_losses(self) -> dict[str, dict]:
        """By server id: what each NF lost in its receive ring, hold buffer and sends over all its instances
        (those a migration retired and the live one)."""
        nfs = {}
        for server in self.inventory.list():
            if server.kind != "nf":
                continue
            places = collections.Counter({"ring": 0, "hold": 0, "send": 0})
            if self.migrator is not None:
                places.update(self.migrator.retired_losses.get(server.id, {}))
            live = server.control is not None and server.status in ("ACTIVE", "MIGRATING")
            if live:
                try:
                    with self.launcher.nf_control(server.control) as nf:
                        places.update(nf_loss_places(nf.stats()))
                except (NfControlError, OSError) as exc:   # it may be restarting: say so, count the rest
                    log.warning("losses: %s does not answer: %s", server.name, exc)
                    live = False
            nfs[server.id] = {"name": server.name, "side": server.side, "live_counted": live, **places}
        return nfs

    def hypervisors(self) -> list[dict]:
        return [self.hypervisor(switch_id) for switch_id in self.switch_ids()]

    def hypervisor(self, switch_id: str) -> dict:
        if switch_id not in self.switch_ids():
            raise NotFound(f"hypervisor {switch_id!r} does not exist")
        sw = self.platform.switch(switch_id)
        servers = [s for s in self.inventory.list() if s.side == switch_id]
        usage = self.placer.usage(self.inventory.list(), self.traffic_matrix.rates())
        capacity = sw["cgroup"]["cores"] if sw["role"] == "snic" else self.placer.host_cores
        view = {
            "id": switch_id, "hypervisor_hostname": switch_id, "hypervisor_type": sw["role"],
            "state": "up", "status": "enabled", "vcpus": capacity,
            "vcpus_used": round(usage.cpu.get(switch_id, 0.0), 4),
            "memory_mb": self.placer.memory_mb(switch_id),
            "memory_mb_used": usage.mem.get(switch_id, 0.0),
            "running_vms": sum(1 for s in servers if s.status in ("ACTIVE", "MIGRATING")),
            "cpu_seconds": round(self.platform.cpu_seconds()[switch_id], 3),
            "uno:pcie": None,
        }
        if sw["role"] == "snic":
            link = next(link for link in self.platform.description["pcie_links"] if link["snic"] == switch_id)
            view["uno:pcie"] = {"capacity_gbps": link["gbps"],
                                "used_gbps": round(usage.pcie.get(switch_id, 0.0), 6)}
        return view

    def health(self) -> dict:
        checks = {"inventory": "ok"}
        try:
            checks["platform"] = "ok" if self.platform.status()["healthy"] else "unhealthy"
        except PlatformError as exc:
            checks["platform"] = f"error: {exc}"
        try:
            self.portmap.health()
            checks["oneswitch"] = "ok"
        except Unavailable as exc:
            checks["oneswitch"] = f"error: {exc}"
        status = "ok" if all(v == "ok" for v in checks.values()) else "degraded"
        return {"status": status, "checks": checks}

    # -- start-up --------------------------------------------------------------------------

    def _lost_migration(self, server: Server, fault: str) -> None:
        log.error("server %s: cannot finish or undo its migration: %s", server.name, fault)
        self.inventory.update(server.id, status="ERROR", migration=None, fault=fault)

    def recover(self) -> dict[str, list[str]]:
        """Re-adopt what survived an agent restart; report the dead; launch nothing.

        A server still in BUILD was being created when the agent stopped, one in
        DELETING was being deleted: it is removed. An NF whose process is gone, or a VM whose namespace is gone, is
        marked ERROR for the operator to delete. A server on a side that cannot be asked now (a remote sNIC whose
        daemon or management link is down) keeps its record as it is, and the next start asks again: marking it
        dead, or undoing its migration blind, would make the agent and the sNIC disagree on what runs where.
        """
        report: dict[str, list[str]] = {"adopted": [], "dead": [], "removed": [], "unreachable": []}
        with self._lock:
            for server in self.inventory.list():
                if server.status in ("BUILD", "DELETING"):
                    self._teardown(server)
                    self.inventory.delete(server.id)
                    report["removed"].append(server.name)
                    continue
                if server.status == "MIGRATING" and self.migrator is not None:
                    sides = {side for side in (server.side, (server.migration or {}).get("target")) if side}
                    if not all(self.launcher.reachable(side) for side in sides):
                        log.error("server %s: its migration's sides %s are not all in reach; it stays MIGRATING "
                                  "until a start of the agent reaches them", server.name, sorted(sides))
                        report["unreachable"].append(server.name)
                        continue
                    try:
                        server = self.migrator.recover(server)
                    except JournalError as exc:
                        self._lost_migration(server, f"its migration journal is damaged: {exc}")
                        report["dead"].append(server.name)
                        continue
                    except (AgentError, NfControlError) as exc:   # in reach, yet its NFs do not answer: they died
                        self._lost_migration(server, f"its NFs stopped answering during a migration: {exc}")
                        report["dead"].append(server.name)
                        continue
                try:
                    alive = self.launcher.alive(server.instance, server.kind, server.pid, server.pid_start,
                                                server.netns, side=server.side)
                except Unavailable as exc:
                    log.warning("server %s: %s cannot be asked whether it runs (%s); its record stays as it is",
                                server.name, server.side, exc)
                    report["unreachable"].append(server.name)
                    continue
                if alive:
                    report["adopted"].append(server.name)
                elif server.status != "ERROR":
                    self.inventory.update(server.id, status="ERROR",
                                          fault="the instance died while the agent was not running")
                    report["dead"].append(server.name)
                else:
                    report["dead"].append(server.name)
        log.info("recovered inventory: %s", report)
        return report
