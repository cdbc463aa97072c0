"""OneSwitch's footprint on the server it runs on (issue 18): memory and event-loop stalls under a bulk install.

For each rule mix (below) and each JVM setting, a fresh OneSwitch in front of an emulated platform gets
10,000 and then, cleared, 100,000 virtual rules, streamed by FlowModBench (then one barrier). After each
install: OneSwitch's resident size (VmRSS), its heap (used and committed, from `jstat -gc`), with the JVM's
defaults and 100,000 rules the same every SETTLE_EVERY_S for SETTLE_S of idleness (`settling`; the target is
read on the last, `rss_settled_mb`; `rss_mb` is the size right after the install), the objects
each rule keeps (`kept_per_rule`, from a class histogram) and the live heap (used after a full collection
that `jcmd GC.run` asks for; RSS is read before both). During the
100,000-rule install, a second controller connection sends an echo request every ECHO_EVERY_S and times
the replies (p50, p99, p99.9, max), and OneSwitch's own event-loop watch (GET /v1/health, `event_loop`:
how late a 5 ms tick ran) gives the longest stall and the ticks late by more than 10 ms.

Mixes (virtual ports 1, 2 = the host's VMs, 3 = the sNIC's wire port):
- local: in_port=1, eth_dst=n -> output 2: one physical entry on the host;
- crossing: in_port=1 -> output 3: an entry on the host, a shared delivery on the sNIC;
- wildcard_ingress: any in_port, eth_dst=n -> output 2: an entry on every switch a packet may enter.

JVM settings: `default` (no options: the JVM's own heap sizing and collector, as OneSwitch runs and as issue 18
asks), `shenandoah` (a concurrent collector, whose pauses stay under 1 ms here: what stalls then is the event
loop's own work) and `tuned` (the throughput collector with a 1 GB young generation, what the tests ran with
until 2026-11-28).
The peer of the stall count is org.uno.oneswitch.bench.TickWatch: the same tick on an idle event loop of
its own JVM, during the same install.
"""
from __future__ import annotations

import json
import pathlib
import statistics
import subprocess
import threading
import time

from uno_oneswitch.client import rest
from uno_oneswitch.ofclient import OfClient

from bench.bench_oneswitch import Stack, clear_rules, environment, flow_mod_client
from bench.quantile import quantile
from uno_harness.attacks import rss_bytes
from uno_harness.oneswitch import JAR, build_jar
from uno_harness.processes import Proc, free_port, wait_for

MIXES = {"local": ("1", 2), "crossing": ("1", 3), "wildcard_ingress": ("any", 2)}
SIZES = (10_000, 100_000)
JVMS = {"default": (), "shenandoah": ("-XX:+UseShenandoahGC",),
        "tuned": ("-XX:+UseParallelGC", "-Xmn1g", "-Xmx2g", "-XX:MaxDirectMemorySize=1g")}
ECHO_EVERY_S = 0.001
TARGET_RSS_MB = 256
#: OneSwitch gives memory back after a quiet minute, then in twelve periodic cycles 5 s apart (app/HeapPolicy)
SETTLE_S, SETTLE_EVERY_S = 150, 10
TARGET_STALL_MS = 10
TARGET_ECHO_P999_MS = 10
MB = 1 << 20


class EchoProbe:
    """Echo round trips on a controller connection of its own, every ECHO_EVERY_S, until `stop`."""

    def __init__(self, listen: int):
        self.client = OfClient(listen)
        self.rtts: list[float] = []
        self.failures = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                if self.client.echo():
                    self.rtts.append(time.monotonic() - started)
                else:
                    self.failures += 1
            except (OSError, AssertionError):
                self.failures += 1
            self._stop.wait(max(0.0, ECHO_EVERY_S - (time.monotonic() - started)))

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join()
        self.client.close()
        ms = sorted(x * 1e3 for x in self.rtts)
        return {"samples": len(ms), "failures": self.failures, "p50_ms": statistics.median(ms),
                "p99_ms": quantile(ms, 0.99), "p99_9_ms": quantile(ms, 0.999), "max_ms": ms[-1]}


def heap_mb(pid: int) -> dict:
    """Used and committed heap (MB) from `jstat -gc`: survivors, eden and old generation."""
    out = subprocess.run(["jstat", "-gc", str(pid)], capture_output=True, text=True, check=True).stdout.split("\n")
    # a column a collector does not have reads "-"
    row = dict(zip(out[0].split(), (0.0 if x == "-" else float(x) for x in out[1].split()), strict=True))
    used = sum(row[k] for k in ("S0U", "S1U", "EU", "OU"))
    committed = sum(row[k] for k in ("S0C", "S1C", "EC", "OC"))
    return {"used_mb": round(used / 1024, 1), "committed_mb": round(committed / 1024, 1)}


def kept_per_rule(pid: int, rules: int) -> dict:
    """What each rule keeps as objects of its own, from a class histogram (`jcmd GC.class_histogram`, which
    collects first with G1 and the throughput collector): every class with at least one instance per two rules,
    arrays included, counts as kept per rule; the columns, pages and indexes' arrays, a few large arrays, do not."""
    out = subprocess.run(["jcmd", str(pid), "GC.class_histogram"], capture_output=True, text=True, check=True).stdout
    objects = size = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[0].endswith(":") and parts[1].isdigit() and int(parts[1]) * 2 >= rules:
            objects += int(parts[1])
            size += int(parts[2])
    return {"objects_per_rule": round(objects / rules, 2), "object_bytes_per_rule": round(size / rules)}


def loop_watch(rest_port: int) -> dict:
    status, health = rest(rest_port, "GET", "/v1/health")
    assert status == 200, health
    return health["event_loop"]


def stalls(before: dict, after: dict) -> dict:
    """The event-loop watch's counts between two readings: ticks late by more than TARGET_STALL_MS, and the
    upper bound of the latest bucket any tick reached (null: above the last bound)."""
    bounds = before["late_ms_bounds"]
    delta = [a - b for a, b in zip(after["late_ticks"], before["late_ticks"], strict=True)]
    worst = max(i for i, n in enumerate(delta) if n) if any(delta) else 0
    over = sum(n for bound, n in zip(bounds + [None], delta, strict=True) if bound is None or bound > TARGET_STALL_MS)
    return {"ticks": sum(delta), "ticks_late_over_10ms": over,
            "worst_late_ms_at_most": bounds[worst] if worst < len(bounds) else None,
            "max_late_ms_since_start": after["max_late_ms"]}


class PeerTickWatch:
    """The peer of OneSwitch's event-loop watch: the same 5 ms tick on an idle event loop of a JVM of its own
    (org.uno.oneswitch.bench.TickWatch, the same JVM options), during the same install. Its late ticks are what
    this machine's scheduling alone does to a thread under that load."""

    def __init__(self, jvm: tuple[str, ...]):
        self.proc = subprocess.Popen(["java", *jvm, "-cp", str(JAR), "org.uno.oneswitch.bench.TickWatch"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def stop(self) -> dict:
        out, _ = self.proc.communicate("", timeout=30)
        after = json.loads(out)
        return stalls({**after, "late_ticks": [0] * len(after["late_ticks"])}, after)


def settling(pid: int) -> list[dict]:
    """RSS and heap every SETTLE_EVERY_S for SETTLE_S after an install, before anything asks for a collection:
    OneSwitch's heap policy (app/HeapPolicy) gives memory back at the idle JVM's periodic concurrent cycles."""
    series, start = [], time.monotonic()
    for at in range(SETTLE_EVERY_S, SETTLE_S + 1, SETTLE_EVERY_S):
        time.sleep(max(0.0, start + at - time.monotonic()))
        series.append({"after_s": at, "rss_mb": round(rss_bytes(pid) / MB, 1), "heap": heap_mb(pid)})
    return series


def _install(stack: Stack, count: int, in_port: str, out_port: int, probe: bool, jvm: tuple[str, ...],
             settle: bool) -> dict:
    pid = stack.oneswitch.pid
    watch = loop_watch(stack.rest)
    echo = EchoProbe(stack.listen) if probe else None
    peer = PeerTickWatch(jvm) if probe else None
    run = flow_mod_client(stack.target, "stream", count, in_port, out_port)
    row = {"rules": count, "rate": round(run["rate"])}
    if echo is not None:
        row["echo"] = echo.stop()
        row["event_loop"] = stalls(watch, loop_watch(stack.rest))
        row["peer_idle_loop"] = peer.stop()
    time.sleep(1)  # what the install left behind settles (the bridges' replies, the collector's work)
    row["rss_mb"] = round(rss_bytes(pid) / MB, 1)
    row["heap"] = heap_mb(pid)
    if settle:
        row["settling"] = settling(pid)
        row["rss_settled_mb"] = row["settling"][-1]["rss_mb"]
    row.update(kept_per_rule(pid, count))
    subprocess.run(["jcmd", str(pid), "GC.run"], capture_output=True, check=True)
    row["heap_live_mb"] = heap_mb(pid)["used_mb"]
    row["rss_after_full_gc_mb"] = round(rss_bytes(pid) / MB, 1)
    return row


def one_mix(jvm: tuple[str, ...], in_port: str, out_port: int) -> dict:
    stack = Stack(vms=2, jvm_options=jvm)
    try:
        bridges = [s["openflow"] for s in stack.platform.description["switches"]]
        idle = {"rss_mb": round(rss_bytes(stack.oneswitch.pid) / MB, 1)}
        rows = []
        for count in SIZES:
            largest = count == max(SIZES)
            rows.append(_install(stack, count, in_port, out_port, probe=largest, jvm=jvm, settle=largest and not jvm))
            clear_rules(stack.target, bridges)
        return {"idle": idle, "installs": rows}
    finally:
        stack.close()


def busy_proxy_peer(jvm: tuple[str, ...]) -> dict:
    """The busy peer of OneSwitch's event-loop watch and echo round trips: the Java null proxy (the same runtime, the
    same JVM options, parsing nothing) carrying the same streamed install of max(SIZES) rules straight to the host
    bridge, with the same 5 ms tick on its one event loop and the same echo probe on a second connection through it
    (the bridge answers those): what any Java proxy busy with this stream suffers on this machine."""
    stack = Stack(vms=2, jvm_options=jvm)  # its OneSwitch stays idle
    proxy = None
    try:
        host = stack.platform.switch("host")
        vm0, vm1 = (next(p["ofport"] for p in host["ports"] if p["name"] == vm["port"])
                    for vm in stack.platform.description["vms"])
        report, port = stack.logdir / "nullproxy-loop.json", free_port()
        proxy = Proc("java-nullproxy", ["java", *jvm, "-cp", str(JAR), "org.uno.oneswitch.bench.NullProxy", str(port),
                                        host["openflow"][len("unix:"):], str(report)], stack.logdir / "nullproxy.log")
        wait_for(report.exists, 30, "the null proxy's first loop report")
        before = json.loads(report.read_text())
        echo = EchoProbe(port)
        flow_mod_client(f"tcp:127.0.0.1:{port}", "stream", max(SIZES), vm0, vm1)
        echoed = echo.stop()
        written = report.stat().st_mtime
        wait_for(lambda: report.stat().st_mtime > written, 5, "the null proxy's next loop report")
        return stalls(before, json.loads(report.read_text())) | {"echo": echoed}
    finally:
        if proxy is not None:
            proxy.stop()
        stack.close()


def main(results_dir: pathlib.Path) -> dict:
    build_jar()
    results = {jvm: {mix: one_mix(options, *ports) for mix, ports in MIXES.items()} for jvm, options in JVMS.items()}
    busy_peer = {jvm: busy_proxy_peer(options) for jvm, options in JVMS.items()}
    largest = {jvm: {mix: r["installs"][-1] for mix, r in mixes.items()} for jvm, mixes in results.items()}
    met = {jvm: {mix: row.get("rss_settled_mb", row["rss_mb"]) <= TARGET_RSS_MB
                 and row["event_loop"]["ticks_late_over_10ms"] == 0 and row["echo"]["p99_9_ms"] <= TARGET_ECHO_P999_MS
                 for mix, row in rows.items()} for jvm, rows in largest.items()}
    report = {"benchmark": "oneswitch footprint: memory and event-loop stalls under a bulk install",
              "targets": {"rss_mb": TARGET_RSS_MB, "stall_ms": TARGET_STALL_MS, "echo_p99_9_ms": TARGET_ECHO_P999_MS},
              "met": met, "jvm_options": {k: list(v) for k, v in JVMS.items()}, "results": results,
              "peer_busy_null_proxy": busy_peer,
              "environment": environment()}
    (results_dir / "oneswitch-footprint.json").write_text(json.dumps(report, indent=2) + "\n")
    return {jvm: {mix: {"rss_mb": row["rss_mb"], "rss_settled_mb": row.get("rss_settled_mb"),
                        "heap_live_mb": row["heap_live_mb"],
                        "echo_p99_9_ms": row["echo"]["p99_9_ms"],
                        "stalls_over_10ms": row["event_loop"]["ticks_late_over_10ms"],
                        "peer_idle_loop_over_10ms": row["peer_idle_loop"]["ticks_late_over_10ms"]}
                  for mix, row in rows.items()} for jvm, rows in largest.items()} | {"met": met} | {
        "peer_busy_null_proxy_over_10ms": {jvm: p["ticks_late_over_10ms"] for jvm, p in busy_peer.items()},
        "peer_busy_null_proxy_echo_p99_9_ms": {jvm: p["echo"]["p99_9_ms"] for jvm, p in busy_peer.items()}}
