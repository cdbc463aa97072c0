"""An acknowledgement means durable: install rules through OneSwitch while it is SIGKILLed at random points, and check
after every restart, rule by rule, that each acknowledged rule is back in OneSwitch (its passive listener's dump) and
on the host bridge (`ovs-ofctl dump-flows`), and that no refused rule is. Used by the integration test (a small run)
and the benchmark (the 20,000-rule run).

The rules are `priority=1,in_port=<in>,dl_dst=<n>,actions=output:<out>` between two virtual ports on the host, so
each becomes one entry in the host bridge's table 1 with the same dl_dst.
"""
from __future__ import annotations

import dataclasses
import random
import re
import threading
import time
from collections.abc import Callable

from uno_oneswitch.ofclient import OfClient

from uno_harness.oneswitch import ofctl

PRIORITY = 1
DL_DST = re.compile(r"dl_dst=([0-9a-f]{2}(?::[0-9a-f]{2}){5})")


@dataclasses.dataclass
class Target:
    """A running OneSwitch with a state file, and how to kill and restart it."""
    listen: int                    # OneSwitch's passive OpenFlow port
    bridge: str                    # ovs-ofctl target of the host bridge
    kill: Callable[[], None]       # SIGKILL OneSwitch (returns once it is dead)
    restart: Callable[[], None]    # start it again on the same state file (returns once it is healthy)
    in_port: int = 1               # virtual ports, both on the host
    out_port: int = 2


def mac(i: int) -> str:
    return "02:" + ":".join(f"{b:02x}" for b in i.to_bytes(5, "big"))


def index(mac_text: str) -> int:
    return int.from_bytes(bytes.fromhex(mac_text.replace(":", ""))[1:], "big")


def flow_mod(client: OfClient, i: int, in_port: int, out_port: int):
    p, ofp = client.parser, client.ofp
    return p.OFPFlowMod(client.dp, table_id=0, command=ofp.OFPFC_ADD, priority=PRIORITY, buffer_id=ofp.OFP_NO_BUFFER,
                        match=p.OFPMatch(in_port=in_port, eth_dst=mac(i)),
                        instructions=[p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(out_port)])])


def _indices(dump: str) -> set[int]:
    return {index(m[1]) for line in dump.splitlines() if f" priority={PRIORITY}," in line
            for m in [DL_DST.search(line)] if m}


def virtual_rules(listen: int) -> set[int]:
    """The rules OneSwitch holds (through its passive listener), by index."""
    return _indices(ofctl(f"tcp:127.0.0.1:{listen}", "dump-flows").stdout)


def physical_rules(bridge: str) -> set[int]:
    """The entries the host bridge holds in table 1 (virtual table 0), by index."""
    return _indices(ofctl(bridge, "dump-flows", "table=1").stdout)


def install(client: OfClient, indices: list[int], in_port: int, out_port: int) -> tuple[set[int], set[int]]:
    """Sends the rules, then a barrier: (acknowledged, refused) once its reply came (ConnectionError if it did not)."""
    xids = {}
    for i in indices:
        xids[client.send(flow_mod(client, i, in_port, out_port))] = i
    errors = [m for m in client.barrier(timeout=60) if m.msg_type == client.ofp.OFPT_ERROR]
    refused = {xids[e.xid] for e in errors if e.xid in xids}
    return set(indices) - refused, refused


@dataclasses.dataclass
class Report:
    rules: int
    kills: int = 0
    acked: int = 0
    refused: int = 0
    lost: list[int] = dataclasses.field(default_factory=list)          # acknowledged, not back
    came_back: list[int] = dataclasses.field(default_factory=list)     # refused, back anyway
    differ: list[str] = dataclasses.field(default_factory=list)        # OneSwitch and the bridge disagree
    restart_seconds: list[float] = dataclasses.field(default_factory=list)

    def ok(self) -> bool:
        return not (self.lost or self.came_back or self.differ)


def check(target: Target, acked: set[int], refused: set[int], report: Report, when: str) -> None:
    """Compares, rule by rule, what OneSwitch and the bridge hold with what was acknowledged and refused."""
    client = OfClient(target.listen)
    try:
        client.barrier(timeout=60)  # the bridges were reconciled and answered a barrier
    finally:
        client.close()
    virtual, physical = virtual_rules(target.listen), physical_rules(target.bridge)
    report.lost += sorted(acked - virtual)
    report.came_back += sorted(refused & virtual)
    if virtual != physical:
        report.differ.append(f"{when}: only in OneSwitch {sorted(virtual - physical)[:10]}, only on the bridge "
                             f"{sorted(physical - virtual)[:10]}")


def install_with_kills(target: Target, count: int, kills: int, rng: random.Random, chunk: int = 50) -> Report:
    """Installs rules 0..count-1 in chunks, each followed by a barrier; SIGKILLs OneSwitch `kills` times at random
    rules (a few milliseconds after sending it), restarts it and checks after each restart; goes on from the first rule
    not acknowledged."""
    report = Report(rules=count)
    kill_at = sorted(rng.sample(range(chunk, count), kills))
    acked, refused = set(), set()
    nxt = 0
    while nxt < count:
        client = OfClient(target.listen)
        killer = None
        try:
            while nxt < count:
                batch = list(range(nxt, min(count, nxt + chunk)))
                if killer is None and kill_at and kill_at[0] < batch[-1] + 1:
                    kill_at.pop(0)
                    killer = threading.Timer(rng.uniform(0, 0.01), target.kill)
                    killer.start()
                ok, no = install(client, batch, target.in_port, target.out_port)
                acked |= ok
                refused |= no
                nxt = batch[-1] + 1
        except (ConnectionError, OSError, AssertionError):
            pass  # killed while waiting
        finally:
            client.close()
        if killer is not None:
            killer.join()
            report.kills += 1
            start = time.monotonic()
            target.restart()
            report.restart_seconds.append(round(time.monotonic() - start, 2))
            check(target, acked, refused, report, f"after kill {report.kills}")
            nxt = min([i for i in range(count) if i not in acked and i not in refused], default=count)
    check(target, acked, refused, report, "at the end")
    missing = set(range(count)) - acked - refused
    if missing:
        report.differ.append(f"never acknowledged nor refused: {sorted(missing)[:10]}")
    report.acked, report.refused = len(acked), len(refused)
    return report
