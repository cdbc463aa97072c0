"""The peer of Fig. 13's slowest packet: what a change of the switches' tables alone costs the chain's packets.

The chain and traffic of bench_migration's 1,000-flow point (a VM, a monitor NF, the wire; numbered UDP at
5,000 packets/s). Rounds alternate a migration through the agent with a *table change* made straight on the two
bridges, with no OneSwitch request and no NF moved: what a remap asks of each switch daemon, as it asks it
(oneswitch/DESIGN.md, "Remap"):

  add      CHANGE_ENTRIES flow_mods adding entries to a table no packet reaches, and a barrier, on an OpenFlow
           connection opened before the traffic; then the settle on each daemon's control socket
           (`uno_platform.unixctl`): `revalidator/pause`, `revalidator/purge`, `revalidator/resume` in one write, as
           OneSwitch sends them;
  switch   the entries deleted, a barrier, and the settle again.

(No process per step, as OneSwitch starts none: starting an `ovs-ofctl` or `ovs-appctl` process for each step delayed
the slowest packet by 13 ms on this two-core machine when the steps changed nothing, and by 14 ms when they made the
change without the settle: the processes, not the change, cost that.)

For each round the slowest added latency of the packets sent from the change's start to its end (plus
SETTLE_MARGIN_S, the time a purged flow's next packets take to be translated again), against the median before
it, as bench_migration measures a migration's; and the same maximum over an equally long window with nothing
done, just before. Writes results/migration_peer.json: the medians over ROUNDS of each.
"""
from __future__ import annotations

import json
import pathlib
import statistics
import tempfile
import time

from uno_oneswitch.ofclient import OfClient

import uno_platform
from bench import bench_migration
from uno_platform import unixctl
from uno_platform.traffic import NumberedUdp

ROUNDS = 6
FLOWS = bench_migration.HOG_FLOWS
CHANGE_TABLE = 230        # OneSwitch sends no packet there (tables 1-200 virtual, 243-253 its own)
CHANGE_ENTRIES = 4
COOKIE = 0x5EED
SETTLE_MARGIN_S = 0.05
QUIET_GAP_S = 0.2         # the quiet window ends this long before the change, as bench_migration's does


def main(results_dir: pathlib.Path) -> dict:
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="uno-bench-migration-peer-"))
    stack = None
    migrations, changes = [], []
    try:
        stack, mon, source, sink_ns, sink_ip = bench_migration._setup(workdir)
        switches = stack.platform.description["switches"]
        for _ in range(ROUNDS):
            migrations.extend(bench_migration._one_point(stack, mon, source, sink_ns, sink_ip, FLOWS, repeat=1))
            changes.append(_table_change(switches, source, sink_ns, sink_ip))
    finally:
        if stack is not None:
            stack.stop()
        uno_platform.down(bench_migration.PREFIX)
    summary = {
        "migration_slowest_ms": statistics.median(m["added_latency_max_ms"] for m in migrations),
        "migration_slowest_switch_ms": statistics.median(m["slowest_switch_ms"] for m in migrations),
        "migration_switch_to_release_ms": statistics.median(m["switch_to_release_ms"] for m in migrations),
        "migration_no_migration_ms": statistics.median(m["slowest_no_migration_ms"] for m in migrations),
        "table_change_slowest_ms": statistics.median(c["slowest_ms"] for c in changes),
        "table_change_quiet_ms": statistics.median(c["slowest_quiet_ms"] for c in changes),
        "table_change_ms": statistics.median(c["change_ms"] for c in changes),
        "lost": sum(m["lost"] for m in migrations) + sum(c["lost"] for c in changes),
    }
    result = {"benchmark": "migration peer: a table change on both bridges, no OneSwitch, no move",
              "flows": FLOWS, "pps": bench_migration.PPS, "rounds": ROUNDS, "change_entries": CHANGE_ENTRIES,
              "summary": summary, "table_changes": changes, "migrations": migrations}
    (results_dir / "migration_peer.json").write_text(json.dumps(result, indent=2) + "\n")
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in summary.items()}


def _table_change(switches: list[dict], source: str, sink_ns: str, sink_ip: str) -> dict:
    """One round: traffic, then the add and switch of a remap on every bridge; the slowest packets."""
    warm = max(1.0, 2.0 * FLOWS / bench_migration.PPS)
    bridges = [(OfClient(sw["openflow"]), sw["appctl"]) for sw in switches]
    try:
        with NumberedUdp(source, sink_ns, sink_ip, flows=FLOWS, pps=bench_migration.PPS,
                         seconds=warm + 1.5) as run:
            time.sleep(warm)
            begin = time.time()
            for command in (OfClient.ofp.OFPFC_ADD, OfClient.ofp.OFPFC_DELETE_STRICT):
                for of, _ in bridges:
                    for i in range(CHANGE_ENTRIES):
                        of.send(OfClient.parser.OFPFlowMod(OfClient.dp, cookie=COOKIE, table_id=CHANGE_TABLE,
                                                           command=command, priority=1, out_port=OfClient.ofp.OFPP_ANY,
                                                           out_group=OfClient.ofp.OFPG_ANY,
                                                           match=OfClient.parser.OFPMatch(metadata=i)))
                    if errors := [m for m in of.barrier() if m.msg_type == OfClient.ofp.OFPT_ERROR]:
                        raise RuntimeError(f"a bridge refused the table change: {errors[0]}")
                for _, appctl in bridges:
                    unixctl.call_all(appctl, ["revalidator/pause", "revalidator/purge", "revalidator/resume"])
            end = time.time()
    finally:
        for of, _ in bridges:
            of.close()
    sent = [arrival - latency for arrival, latency in zip(run.result["arrivals"], run.result["latencies"],
                                                          strict=True)]
    pairs = list(zip(sent, run.result["latencies"], strict=True))
    baseline = statistics.median(lat for t, lat in pairs if t < begin - QUIET_GAP_S)
    quiet_end = begin - QUIET_GAP_S
    quiet_begin = quiet_end - (end + SETTLE_MARGIN_S - begin)
    return {"change_ms": (end - begin) * 1e3, "baseline_latency_ms": baseline * 1e3,
            "slowest_ms": bench_migration._max_ms([lat - baseline for t, lat in pairs
                                                   if begin <= t < end + SETTLE_MARGIN_S]),
            "slowest_quiet_ms": bench_migration._max_ms([lat - baseline for t, lat in pairs
                                                         if quiet_begin <= t < quiet_end]),
            "lost": run.lost}
