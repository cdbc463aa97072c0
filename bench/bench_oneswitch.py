"""OneSwitch flow_mod installation rate against the same client talking straight to one OVS bridge.

On an emulated platform (host + one sNIC, two VMs), a Java client (org.uno.oneswitch.bench.FlowModBench,
in the OneSwitch jar, messages encoded before the clock starts) installs rules
`priority=1, in_port, eth_dst=<n>, actions=output:<port>`:

* directly on the host bridge, through its OpenFlow management socket (the baseline), and
* through OneSwitch's passive OpenFlow listener, with virtual port numbers,

in two modes: `barrier` (each flow_mod followed by a barrier, waiting for its reply) and `stream`
(all flow_mods, then one barrier). Workload `local` (VM to VM on the host: one physical rule per
virtual rule, the same work the baseline does) gives the headline ratio; `crossing` (VM to the
sNIC's wire port: two physical rules on two bridges) is reported alongside. Direct and OneSwitch
runs alternate, after a warm-up of OneSwitch's JIT, and the median of the trials is kept. Results go to
bench/results/oneswitch.json.
"""
from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import platform as pyplatform
import secrets
import statistics
import subprocess
import tempfile
import time

import uno_platform
from uno_platform.spec import TestbedSpec

REPO = pathlib.Path(__file__).resolve().parents[1]
TARGET_RATIO = 0.7
TRIALS = 5
COUNTS = {"barrier": 3000, "stream": 50000}
#: Streamed runs through OneSwitch before measuring: its JIT needs a few hundred thousand flow_mods to
#: reach steady state (a daemon runs warm; a cold JVM spends 4x the CPU per flow_mod).
WARMUP_RUNS = 5


def _stack_module():
    path = REPO / "tests" / "oneswitch" / "oneswitch_stack.py"
    spec = importlib.util.spec_from_file_location("oneswitch_stack", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _client(jar: pathlib.Path, target: str, mode: str, count: int, in_port: int, out_port: int) -> dict:
    result = subprocess.run(["java", "-XX:+UseSerialGC", "-cp", str(jar), "org.uno.oneswitch.bench.FlowModBench",
                             target, mode, str(count), str(in_port), str(out_port)],
                            capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise RuntimeError(f"FlowModBench {target} {mode} failed: {result.stderr.strip()}")
    run = json.loads(result.stdout)
    if run["errors"]:
        raise RuntimeError(f"FlowModBench {target} {mode}: {run['errors']} flow_mods refused")
    return run


def _clear(stack, target: str, expect_zero: list[str]) -> None:
    stack.ofctl(target, "del-flows")
    for t in expect_zero:  # the bridges are empty again before the next run
        stack.wait_for(lambda t=t: "n_packets" not in stack.ofctl(t, "dump-flows").stdout, 60, f"{t} to empty")


def main(results_dir: pathlib.Path) -> dict:
    stack = _stack_module()
    jar = stack.JAR
    if not jar.exists():
        subprocess.run(["mvn", "-q", "-B", "-DskipTests", "package"], cwd=REPO / "oneswitch", check=True)
    listen, south, rest = stack.free_port(), stack.free_port(), stack.free_port()
    prefix = "b" + secrets.token_hex(2) + "-"
    platform = uno_platform.up(TestbedSpec(prefix=prefix, vms=2, controller=f"tcp:127.0.0.1:{south}"))
    logdir = pathlib.Path(tempfile.mkdtemp(prefix="bench-oneswitch-"))
    oneswitch = None
    try:
        desc = platform.description
        oneswitch = stack.start_oneswitch(f"{desc['state_dir']}/platform.json", logdir / "oneswitch.log",
                                          listen=listen, south=south, rest_port=rest, controller=None)
        stack.wait_healthy(oneswitch, rest)
        host = platform.switch("host")
        direct = host["openflow"]
        virtual = f"tcp:127.0.0.1:{listen}"
        bridges = [platform.switch(s["id"])["openflow"] for s in desc["switches"]]
        ports = {p["name"]: p["ofport"] for p in host["ports"]}
        vm0, vm1 = (ports[vm["port"]] for vm in desc["vms"])
        pcie = next(p["ofport"] for p in host["ports"] if p["kind"] == "pcie")
        # Virtual ports (auto-mapped in description order): 1, 2 = the VMs, 3 = the wire port.
        workloads = {"local": {"direct": (vm0, vm1), "oneswitch": (1, 2)},
                     "crossing": {"direct": (vm0, pcie), "oneswitch": (1, 3)}}

        def run(target, mode, ports_):
            r = _client(jar, target, mode, COUNTS[mode], *ports_)
            _clear(stack, target, bridges)
            return r["rate"]

        for _ in range(WARMUP_RUNS):  # warm-up: OneSwitch's JIT, OVS's tables
            for w in workloads.values():
                run(virtual, "stream", w["oneswitch"])
        for mode in COUNTS:
            for w in workloads.values():
                run(virtual, mode, w["oneswitch"])
                run(direct, mode, w["direct"])

        results = {}
        for name, w in workloads.items():
            results[name] = {}
            for mode in COUNTS:
                direct_rates, oneswitch_rates = [], []
                for _ in range(TRIALS):
                    direct_rates.append(run(direct, mode, w["direct"]))
                    oneswitch_rates.append(run(virtual, mode, w["oneswitch"]))
                d, o = statistics.median(direct_rates), statistics.median(oneswitch_rates)
                results[name][mode] = {"count": COUNTS[mode], "direct_rate": round(d, 1),
                                       "oneswitch_rate": round(o, 1), "ratio": round(o / d, 3),
                                       "direct_trials": [round(x) for x in direct_rates],
                                       "oneswitch_trials": [round(x) for x in oneswitch_rates]}
        headline = {mode: results["local"][mode]["ratio"] for mode in COUNTS}
        report = {
            "benchmark": "oneswitch flow_mod installation",
            "unit": "flow_mods per second (median of trials)",
            "target_ratio": TARGET_RATIO,
            "ratio": headline,
            "met": {mode: r >= TARGET_RATIO for mode, r in headline.items()},
            "workloads": results,
            "environment": {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
                            "machine": pyplatform.machine(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            "baseline": "same client, host bridge's management Unix socket",
                            "oneswitch": "TCP to OneSwitch's passive listener; OneSwitch to the bridges over "
                                         "their management sockets"},
        }
    finally:
        if oneswitch is not None:
            oneswitch.stop()
        problems = uno_platform.down(prefix)
        if problems:
            print(f"bench oneswitch: tear-down problems: {problems}")
    (results_dir / "oneswitch.json").write_text(json.dumps(report, indent=2) + "\n")
    return {"ratio": report["ratio"], "met": report["met"],
            "rates": {f"{w}/{m}": [results[w][m]["direct_rate"], results[w][m]["oneswitch_rate"]]
                      for w in results for m in results[w]}}
