"""Migration cost against the number of flows: the paper's §5.2, Fig. 13.

A monitor NF between a VM and the wire carries numbered UDP over N flows (N = 250 ... 10,000);
while traffic flows it is migrated host <-> sNIC through the agent's API. Each migration's report
splits the time into serialisation, transfer and deserialisation of the state (the NFs time their
own part) and the rest (starting the new NF, quiescing, OneSwitch's remap, moving held packets,
release, retiring), with the state size. The extra per-packet latency is measured on the packets
sent from the start of the remap to the new NF's release, against the median latency of packets
sent before the migration, in the same run, and its slowest packet against the slowest of an equally long
window with no migration just before; it is also split at the start of OneSwitch's switch
stage: packets sent before it go through the old NF, packets sent after it may wait in the new
NF until the release (`switch_to_release_ms` bounds their wait). Medians over REPEAT migrations.
The HOG_FLOWS point is measured again with one core held by an unrelated process (`under_load`), and on the
DPDK datapath (`dpdk`, where it can run), where OneSwitch's switch stage meets Open vSwitch's poll-mode threads.
"""
from __future__ import annotations

import json
import pathlib
import statistics
import tempfile
import time

import uno_platform
from bench.quantile import quantile
from uno_agent.launcher import vm_netns
from uno_harness.agent import Stack
from uno_harness.processes import wait_for
from uno_nfs import NfControl
from uno_platform import dpdk
from uno_platform.cpu_hog import CpuHog
from uno_platform.spec import TestbedSpec
from uno_platform.traffic import NumberedUdp, ping

FLOW_COUNTS = (250, 500, 750, 1000, 10000)
HOG_FLOWS = 1000
REPEAT = 6
PPS = 5000
PREFIX = "bmig-"
AFTER_RELEASE_S = 0.2


def _setup(workdir: pathlib.Path, datapath: str = "veth"):
    def make_platform(controller: str):
        return uno_platform.up(TestbedSpec(prefix=PREFIX, snic_cores=1.0, pcie_gbps=1.0, vms=0, wire_ports=1,
                                           controller=controller, datapath=datapath))
    stack = Stack(workdir, make_platform)
    vm = stack.create("vm0", "vm.small")
    mon = stack.create("mon", "monitor", **{"uno:expected_gbps": 0.05})
    wire = stack.platform.description["ext"]["interfaces"][0]
    stack.set_chains([stack.chain("c1", vm, [mon], wire["port"])])
    source, sink_ip = vm_netns(stack.platform.prefix, vm), wire["ip"].split("/")[0]
    wait_for(lambda: ping(source, sink_ip, count=1), 30, "the chain to forward")
    return stack, mon, source, stack.platform.description["ext"]["netns"], sink_ip


def _one_point(stack, mon, source, sink_ns, sink_ip, flows: int, repeat: int = REPEAT) -> list[dict]:
    with NfControl(stack.control_socket(mon["id"])) as ctl:
        ctl.state_delete(everything=True)
    # every flow gets packets before the first migration, so the state holds `flows` flows
    warm = max(1.0, 2.0 * flows / PPS)
    samples = []
    for _ in range(repeat):
        side = stack.api("GET", f"/v2.1/servers/{mon['id']}")["server"]["OS-EXT-SRV-ATTR:hypervisor_hostname"]
        target = "host" if side != "host" else "snic0"
        with NumberedUdp(source, sink_ns, sink_ip, flows=flows, pps=PPS, seconds=warm + 1.5) as run:
            time.sleep(warm)
            stack.migrate(mon["id"], target)
        report = stack.api("GET", "/v2.1/uno/migrations")["migrations"][-1]
        if report["rolled_back"]:
            raise RuntimeError(f"a measured migration rolled back: {report['rollback_reason']}")
        samples.append(_sample(report, run))
        with NfControl(stack.control_socket(mon["id"])) as ctl:
            ctl.state_delete(everything=True)
    return samples


def _sample(report: dict, run: NumberedUdp) -> dict:
    """Timings of one migration and the latency of the packets held by it."""
    timings = report["timings"]
    state = timings["serialise"] + timings["transfer"] + timings["deserialise"]
    total = sum(v for k, v in timings.items() if k not in ("serialise", "transfer", "deserialise",
                                                            "state_get_call", "links_drain",
                                                            "links_drain_markers"))
    sent = [arrival - latency for arrival, latency in zip(run.result["arrivals"], run.result["latencies"],
                                                          strict=True)]
    before = [lat for t, lat in zip(sent, run.result["latencies"], strict=True) if t < report["held_from"] - 0.2]
    held = [(t, lat) for t, lat in zip(sent, run.result["latencies"], strict=True)
            if report["held_from"] <= t <= report["held_until"]]
    baseline = statistics.median(before)
    # OneSwitch answers the remap right after its switch and drain stages: packets sent before the
    # switch stage go through the old NF, those sent after may reach the new NF, which holds them
    # until the release. (Counted from the remap's end: its start also has OneSwitch's planning.)
    stages = report["remap_stages"]
    switch_at = (report["held_from"] + report["timings"]["remap"] - stages.get("switch", 0.0)
                 - stages.get("drain", 0.0))
    old_path = [lat - baseline for t, lat in held if t < switch_at]
    new_path = [lat - baseline for t, lat in held if t >= switch_at]
    added = old_path + new_path
    # Where the slowest packets are: sent before OneSwitch's switch stage (its add stage), during it, after it
    # (these may wait in the new NF until the release), and in the AFTER_RELEASE_S after the release (the old
    # NF and its port go), which the added latency above leaves out.
    switched = switch_at + stages.get("switch", 0.0)
    bounds = {"before_switch": (report["held_from"], switch_at), "switch": (switch_at, switched),
              "held": (switched, report["held_until"]),
              "after_release": (report["held_until"], report["held_until"] + AFTER_RELEASE_S)}
    # The peer: the slowest packet of a window as long as the held one, ending 0.2 s before the remap, with no
    # migration (what this machine's scheduling and the sink's own timing add anyway)
    quiet_end = report["held_from"] - 0.2
    bounds["no_migration"] = (quiet_end - (report["held_until"] - report["held_from"]), quiet_end)
    slowest = {f"slowest_{phase}_ms": _max_ms([lat - baseline for t, lat in zip(sent, run.result["latencies"],
                                                                                strict=True) if lo <= t < hi])
               for phase, (lo, hi) in bounds.items()}
    return {
        "direction": f"{report['source']}->{report['target']}",
        "flows": report["flows"], "state_bytes": report["state_bytes"],
        "serialise_ms": timings["serialise"] * 1e3, "transfer_ms": timings["transfer"] * 1e3,
        "deserialise_ms": timings["deserialise"] * 1e3, "rest_ms": (total - state) * 1e3,
        "total_ms": total * 1e3, "held_window_ms": report["held_window_s"] * 1e3,
        "remap_ms": timings["remap"] * 1e3, "start_new_ms": timings["start"] * 1e3,
        "links_drain_ms": timings.get("links_drain", 0.0) * 1e3,
        "links_drain_markers_ms": timings.get("links_drain_markers", 0.0) * 1e3,
        **{f"remap_{stage}_ms": stages.get(stage, 0.0) * 1e3 for stage in ("add", "switch", "drain")},
        "switch_to_release_ms": (report["held_until"] - switch_at) * 1e3,
        "baseline_latency_ms": baseline * 1e3,
        "held_packets": len(held),
        "added_latency_mean_ms": _mean_ms(added), "added_latency_p90_ms": _p90_ms(added),
        "added_latency_max_ms": _max_ms(added),
        "old_path_added_mean_ms": _mean_ms(old_path), "new_path_added_mean_ms": _mean_ms(new_path),
        "new_path_packets": len(new_path), **slowest,
        "lost": run.lost, "duplicates": run.result["duplicates"], "reordered": run.result["reordered"],
    }


def _point(flows: int, samples: list[dict]) -> dict:
    """The medians of one point's migrations, with its pooled and worst figures and every sample."""
    keys = [k for k in samples[0] if k.endswith("_ms") or k in ("state_bytes", "held_packets")]
    held = sum(s["held_packets"] for s in samples)
    return {"flows": flows, **{k: _median(samples, k) for k in keys},
            # every held packet of every migration at this point, not a median of means
            "added_latency_pooled_mean_ms": sum(s["added_latency_mean_ms"] * s["held_packets"]
                                                for s in samples) / held if held else 0.0,
            "added_latency_worst_ms": max(s["added_latency_max_ms"] for s in samples),
            "lost": sum(s["lost"] for s in samples), "duplicates": sum(s["duplicates"] for s in samples),
            "reordered": sum(s["reordered"] for s in samples), "samples": samples}


def _mean_ms(values: list[float]) -> float:
    return statistics.mean(values) * 1e3 if values else 0.0


def _p90_ms(values: list[float]) -> float:
    return quantile(values, 0.9) * 1e3 if values else 0.0


def _max_ms(values: list[float]) -> float:
    return max(values) * 1e3 if values else 0.0


def _median(samples: list[dict], key: str) -> float:
    return statistics.median(s[key] for s in samples)


def plot(points: list[dict], path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [str(p["flows"]) for p in points]
    parts = [("serialise_ms", "serialisation"), ("transfer_ms", "transfer"), ("deserialise_ms", "deserialisation"),
             ("rest_ms", "rest of the migration")]
    fig, ax = plt.subplots(figsize=(7, 4))
    bottom = [0.0] * len(points)
    for key, label in parts:
        values = [p[key] for p in points]
        ax.bar(labels, values, bottom=bottom, label=label)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    ax.set_xlabel("flows")
    ax.set_ylabel("time (ms, median)")
    ax.set_title("NF migration time against flows (cf. paper Fig. 13)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def dpdk_migrations(workdir: pathlib.Path) -> dict:
    """The HOG_FLOWS point on the DPDK datapath."""
    workdir.mkdir(parents=True, exist_ok=True)
    stack = None
    try:
        stack, mon, source, sink_ns, sink_ip = _setup(workdir, "dpdk")
        return _point(HOG_FLOWS, _one_point(stack, mon, source, sink_ns, sink_ip, HOG_FLOWS))
    finally:
        if stack is not None:
            stack.stop()
        uno_platform.down(PREFIX)


def main(results_dir: pathlib.Path) -> dict:
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="uno-bench-migration-"))
    stack = None
    try:
        stack, mon, source, sink_ns, sink_ip = _setup(workdir)
        points = [_point(flows, _one_point(stack, mon, source, sink_ns, sink_ip, flows)) for flows in FLOW_COUNTS]
        with CpuHog():
            under_load = _point(HOG_FLOWS, _one_point(stack, mon, source, sink_ns, sink_ip, HOG_FLOWS))
    finally:
        if stack is not None:
            stack.stop()
        uno_platform.down(PREFIX)
    dpdk_point = None if dpdk.available() else dpdk_migrations(workdir / "dpdk")
    plot(points, results_dir / "migration_fig13.png")
    result = {"benchmark": "migration", "pps": PPS, "repeat": REPEAT, "points": points, "under_load": under_load,
              "dpdk": dpdk_point}
    (results_dir / "migration.json").write_text(json.dumps(result, indent=2) + "\n")
    return {name: [{k: (round(v, 2) if isinstance(v, float) else v) for k, v in p.items() if k != "samples"}
                   for p in group] for name, group in (("points", points), ("under_load", [under_load]))}
