"""From the inventory and the traffic matrix to the placement graph, and back to decisions.

Nodes are servers (by id) and the other virtual ports that carry traffic (wire
ports, VMs the agent does not manage), named `port:<switch>:<name>` and pinned
to their switch. A node's CPU need on a side is its flavor's fixed cores plus
cores per Gbit/s times the traffic it handles (the larger of in and out).
`Placer` asks `uno_solver` for the placement that minimises host CPU under the
PCIe and sNIC limits, for a new server (everything else stays) or for all NFs
(re-placement, with dampening and a saving threshold before anything moves).
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable

import uno_solver
from uno_agent.catalog import Flavor
from uno_agent.errors import Conflict
from uno_agent.inventory import Server
from uno_agent.monitor import Edge, node_traffic

# Objective cost of moving an NF, in host cores: breaks ties toward staying, so that
# equal placements do not flap; real moves are gated by the saving threshold.
MIGRATION_COST = 0.01


def port_node(switch_id: str, port: str) -> str:
    return f"port:{switch_id}:{port}"


def node_switch(node: str) -> str | None:
    """The switch a `port:` node is pinned to (None for servers)."""
    return node.split(":")[1] if node.startswith("port:") else None


@dataclasses.dataclass(frozen=True)
class Usage:
    """Resource use per side implied by a placement and the traffic."""

    cpu: dict[str, float]
    mem: dict[str, float]
    pcie: dict[str, float]          # per sNIC link, both directions


@dataclasses.dataclass(frozen=True)
class Decision:
    """A placement: side per server, the moves it asks for, and the solver's verdict."""

    servers: dict[str, str]
    moves: dict[str, str]
    status: str
    objective: float | None
    decided_at: float
    trigger: str
    detail: dict

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


class Placer:
    """Builds placement graphs for the agent and turns the solver's answers into decisions."""

    def __init__(self, description: dict, flavors: dict[str, Flavor], *, threshold_cores: float,
                 dampening_s: float, host_cores: float | None = None, time_limit_s: float = 2.0):
        self.flavors = flavors
        self.threshold_cores = threshold_cores
        self.dampening_s = dampening_s
        self.host_cores = host_cores if host_cores is not None else float(os.cpu_count() or 1)
        self.time_limit_s = time_limit_s
        self.snics = [sw["id"] for sw in description["switches"] if sw["role"] == "snic"]
        # sNICs that cannot run NFs (a Netronome: switching offload only) keep every NF on the host
        self.nf_snics = [sw["id"] for sw in description["switches"]
                         if sw["role"] == "snic" and sw.get("nf_capable", True)]
        self.snic_cores = {sw["id"]: sw["cgroup"]["cores"] for sw in description["switches"]
                           if sw["role"] == "snic"}
        self.pcie_gbps = {link["snic"]: link["gbps"] for link in description["pcie_links"]}

    def memory_mb(self, side: str) -> float | None:
        """Memory capacity of a side: not modelled by the emulated platform."""
        return None

    # -- the cost model ----------------------------------------------------------------------

    def _sides(self, servers: Iterable[Server], nodes: Iterable[str]) -> dict[str, str]:
        sides = {s.id: s.side for s in servers if s.side}
        sides.update({n: node_switch(n) for n in nodes if node_switch(n)})
        return sides

    def usage(self, servers: list[Server], rates: dict[Edge, float],
              sides: dict[str, str] | None = None) -> Usage:
        nodes = {n for edge in rates for n in edge}
        sides = sides or self._sides(servers, nodes)
        traffic = node_traffic(rates)
        cpu: dict[str, float] = {}
        mem: dict[str, float] = {}
        for server in servers:
            side = sides.get(server.id)
            cost = self._cost(server, side)
            if side is None or cost is None:
                continue
            gbps = traffic.get(server.id, server.config.get("expected_gbps", 0.0))
            cpu[side] = cpu.get(side, 0.0) + cost.cpu(gbps)
            mem[side] = mem.get(side, 0.0) + cost.mem_mb
        pcie: dict[str, float] = {}
        for (a, b), rate in rates.items():
            for link in crossed_links(sides.get(a), sides.get(b)):
                pcie[link] = pcie.get(link, 0.0) + rate
        return Usage(cpu=cpu, mem=mem, pcie=pcie)

    def _cost(self, server: Server, side: str | None):
        if side is None:
            return None
        flavor = self.flavors.get(server.flavor)
        return None if flavor is None else (flavor.host if side == "host" else flavor.snic)

    # -- decisions -----------------------------------------------------------------------------

    def place_new(self, servers: list[Server], new: Server, expected_gbps: float,
                  rates: dict[Edge, float], *, now: float) -> Decision:
        """Where a new server goes, with every existing one kept where it is."""
        existing = [s for s in servers if s.id != new.id and s.side]
        fixed = {s.id: s.side for s in existing}
        free = {new.id: new.pin}
        traffic = {**node_traffic(rates), new.id: expected_gbps}
        result = self._solve(existing + [new], rates, traffic, fixed, free)
        if not result.placed:
            raise Conflict(f"no room for {new.name!r}: {result.explanation}")
        return Decision(servers={**fixed, new.id: result.location[new.id]}, moves={},
                        status=result.status, objective=result.objective, decided_at=now,
                        trigger="create", detail=result.to_dict())

    def reoptimize(self, servers: list[Server], rates: dict[Edge, float], *, now: float,
                   trigger: str) -> Decision:
        """Best placement of all NFs; moves only if it saves more than the threshold, or if the
        current placement overloads an sNIC's CPU or a PCIe link (the traffic grew past what
        it can carry: moving is then needed, whatever it costs the host).

        NFs that moved less than `dampening_s` ago, or are not ACTIVE, stay where they are.
        """
        placed = [s for s in servers if s.side]
        fixed, free = {}, {}
        for s in placed:
            steady = s.kind == "nf" and s.status == "ACTIVE" and (
                s.moved_at is None or now - s.moved_at >= self.dampening_s)
            if steady:
                free[s.id] = s.pin
            else:
                fixed[s.id] = s.side
        current = {s.id: s.side for s in placed}
        result = self._solve(placed, rates, node_traffic(rates), fixed, free)
        if not result.placed:
            return Decision(servers=current, moves={}, status=result.status, objective=None,
                            decided_at=now, trigger=trigger, detail={"explanation": result.explanation})
        proposed = {sid: result.location[sid] for sid in current}
        now_used = self.usage(placed, rates, current)
        saving = now_used.cpu.get("host", 0.0) - self.usage(placed, rates, proposed).cpu.get("host", 0.0)
        moves = {sid: side for sid, side in proposed.items() if side != current[sid]}
        detail = {**result.to_dict(), "host_cpu_saving": saving, "threshold_cores": self.threshold_cores}
        overloads = self.overloads(now_used)
        if overloads:
            detail["overloaded"] = overloads
        if moves and saving <= self.threshold_cores and not overloads:
            detail["kept"] = f"saving {saving:.3f} cores is not above the threshold"
            return Decision(servers=current, moves={}, status=result.status, objective=result.objective,
                            decided_at=now, trigger=trigger, detail=detail)
        return Decision(servers=proposed, moves=moves, status=result.status, objective=result.objective,
                        decided_at=now, trigger=trigger, detail=detail)

    def overloads(self, usage: Usage) -> list[str]:
        """What `usage` puts over capacity: sNIC CPUs and PCIe links."""
        found = [f"{snic} CPU {usage.cpu[snic]:.3f} of {cores:g} cores" for snic, cores in self.snic_cores.items()
                 if cores is not None and usage.cpu.get(snic, 0.0) > cores]
        found += [f"PCIe link of {snic} {usage.pcie[snic]:.3f} of {gbps:g} Gbit/s"
                  for snic, gbps in self.pcie_gbps.items() if usage.pcie.get(snic, 0.0) > gbps]
        return found

    def _solve(self, servers: list[Server], rates: dict[Edge, float], traffic: dict[str, float],
               fixed: dict[str, str], free: dict[str, str | None]) -> uno_solver.Placement:
        graph = uno_solver.Graph.from_dict(self.graph(servers, rates, traffic, fixed, free))
        return uno_solver.solve(graph, method="fast", time_limit=self.time_limit_s)

    def graph(self, servers: list[Server], rates: dict[Edge, float], traffic: dict[str, float],
              fixed: dict[str, str], free: dict[str, str | None]) -> dict:
        """The placement graph in uno_solver's format (uno-placement-graph/1), CPU in cores.

        Fixed servers are pinned where they run; free ones carry their operator pin,
        if any, and their current side (moving them costs MIGRATION_COST).
        """
        by_id = {s.id: s for s in servers}
        nodes = [{"id": node, "kind": "port", "pin": node_switch(node)}
                 for node in sorted({n for edge in rates for n in edge if node_switch(n)})]
        for sid in sorted(set(fixed) | set(free)):
            server, flavor = by_id[sid], self.flavors[by_id[sid].flavor]
            node = {"id": sid, "kind": server.kind,
                    "needs": {side: {"cpu": cost.cpu_cores} for side, cost in _sides(flavor)},
                    "per_gbps": {side: {"cpu": cost.cpu_per_gbps} for side, cost in _sides(flavor)},
                    "gbps": traffic.get(sid, server.config.get("expected_gbps", 0.0))}
            pin = fixed.get(sid) or free.get(sid) or _only_side(flavor, self.nf_snics)
            if pin:
                node["pin"] = pin
            elif server.side:
                node["current"] = server.side
            nodes.append(node)
        known = {n["id"] for n in nodes}
        edges = [{"src": a, "dst": b, "gbps": rate} for (a, b), rate in sorted(rates.items())
                 if a in known and b in known and a != b and rate > 0]
        return {
            "schema": "uno-placement-graph/1",
            "resources": ["cpu"],
            "snics": [{"id": snic, "pcie_gbps": self.pcie_gbps[snic],
                       # an sNIC that runs no NFs has no room for one
                       "capacity": {"cpu": self.snic_cores[snic] if snic in self.nf_snics else 0.0}}
                      for snic in self.snics],
            "nodes": nodes,
            "edges": edges,
            "objective": {"migration": MIGRATION_COST},
        }


def _sides(flavor: Flavor):
    return [(side, cost) for side, cost in (("host", flavor.host), ("snic", flavor.snic)) if cost is not None]


def _only_side(flavor: Flavor, snics: list[str]) -> str | None:
    """A flavor that can run on one kind of side only is pinned there (VMs: the host); with no sNIC that runs NFs
    (`snics`), every server that can run on the host is pinned there."""
    if flavor.snic is None or (flavor.host is not None and not snics):
        return "host"
    if flavor.host is None and snics:
        return snics[0]
    return None


def crossed_links(a: str | None, b: str | None) -> list[str]:
    """The PCIe links traffic between sides `a` and `b` crosses (sNIC to sNIC goes via the host)."""
    if a is None or b is None or a == b:
        return []
    return [side for side in (a, b) if side != "host"]
