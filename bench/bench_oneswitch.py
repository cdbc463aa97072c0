"""OneSwitch benchmarks: flow_mod installation rate, the §5.4 translation workload, remap latency, SIGKILLs,
the pipeline home's cost.

1. flow_mods (results/oneswitch.json): the same Java client (org.uno.oneswitch.bench.FlowModBench, messages
   encoded before the clock starts) installs `priority=1, in_port, eth_dst=<n>, actions=output:<port>` rules
   straight on the host bridge's management socket (the baseline) and through OneSwitch, in three modes:
   `barrier` (each flow_mod then a barrier), `stream` (50,000, then one barrier) and `sustained` (the same
   streamed, 200,000: long enough that every trial pays its share of OneSwitch's garbage collections, which a
   50,000 burst may or may not meet). Workload `local` (VM to VM on
   the host: one physical rule each, the baseline's work) gives the headline ratio; `crossing` (VM to the sNIC's
   wire port: an entry on the host, a shared delivery on the sNIC) is reported alongside. Direct and OneSwitch
   runs alternate after a warm-up of OneSwitch's JIT; the median of the trials is kept. Target ratio 0.7.
   Two proxies that parse nothing run the local workload in the same alternation: `nullproxy.c` (C, one epoll
   loop) is the ceiling of any proxy in front of the bridge on this machine, OneSwitch's own `NullProxy` (the same
   JVM, Netty transport and event loop) the floor of a Java one; OneSwitch's ratio is read against both. A second
   OneSwitch with a state file (on this machine's disk; a barrier reply waits until everything before it is synced)
   runs the local workload in the same alternation, on a platform of its own: the cost of durability. Each trial
   also records the CPU each party spent per flow_mod (`cpu_us_per_flow_mod`): the client's own while its clock ran
   (FlowModBench reports it), the receiving bridge's ovs-vswitchd and the proxy's process (from /proc): where the
   machine's two cores go, and so what OneSwitch's own work may cost at a given share of a null proxy's rate.
2. translation (results/oneswitch-translation.json): the UNO paper's §5.4 workload, 3,024 random OpenFlow 1.3
   virtual rules on one host and two sNIC switches, installed through OneSwitch and verified by the differential
   verifier with 20,000 random packets; physical rules per virtual rule (paper: 6,810 for 3,024, 2.3x), and the
   translation rate (virtual rules per second of OneSwitch's own time, and end to end until the bridges' barrier).
3. remap (results/oneswitch-remap.json): latency of `PUT /v1/ports/{n}` moving a port with a handful of rules
   between the host and the sNIC, among a thousand other rules, as OneSwitch reports it and as the REST client
   sees it.
4. kill (results/oneswitch-kill.json): 20,000 rules installed through OneSwitch with a state file (a barrier every
   50), SIGKILLed at 10 random points and restarted; after each restart every acknowledged rule must be back, in
   OneSwitch and on the host bridge, rule by rule (uno_harness.killcheck).
5. pipeline home (results/oneswitch-pipeline-home.json): what running a sNIC port's pipeline on the host costs
   its packets (oneswitch/DESIGN.md, "Meters"): UDP from the sNIC's wire port to an endpoint on another port of the
   sNIC at a fixed rate, one-way latency and loss, with the same forwarding rules plain and applying one meter (a
   rate no packet reaches) on the wire's and the VM's ports, which makes the host the pipeline home; the two
   alternate, several rounds.
"""
from __future__ import annotations

import json
import os
import pathlib
import platform as pyplatform
import random
import secrets
import shutil
import socket
import statistics
import subprocess
import tempfile
import time

from uno_oneswitch.client import rest
from uno_oneswitch.ofclient import OfClient

import uno_platform
from uno_harness import killcheck
from uno_harness.oneswitch import JAR, build_jar, ofctl, start_oneswitch, wait_healthy
from uno_harness.processes import Proc, free_port, wait_for
from uno_harness.verify import rules as rulegen
from uno_harness.verify import verifier
from uno_platform.spec import TestbedSpec
from uno_platform.traffic import NumberedUdp

TARGET_RATIO = 0.7
TRIALS = 5
#: mode -> (FlowModBench mode, flow_mods per trial)
MODES = {"barrier": ("barrier", 10000), "stream": ("stream", 50000), "sustained": ("stream", 200000)}
#: Runs of each mode and workload through OneSwitch before measuring: its JIT needs a few hundred
#: thousand streamed flow_mods, and some tens of thousands of barrier round trips (another code
#: path: one flow_mod per read, the barrier's futures), to reach steady state. A daemon runs warm; a
#: cold JVM spends 4x (streamed) to 6x (barrier) the CPU per flow_mod.
WARMUP_RUNS = 5
PAPER_RULES, PAPER_PHYSICAL = 3024, 6810
PACKETS = 20000
REMAPS = 100
KILL_RULES, KILLS = 20000, 10
NULL_PROXY_C = pathlib.Path(__file__).with_name("nullproxy.c")


def environment() -> dict:
    return {"cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
            "machine": pyplatform.machine(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


class Stack:
    """An emulated platform with OneSwitch in front of it (no controller), torn down by `close`; with `ssl`, the
    bridges reach it over SSL; with `durable`, OneSwitch keeps a state file in its log directory (on this
    machine's disk); OneSwitch's JVM runs with `jvm_options`."""

    def __init__(self, durable: bool = False, ssl: bool = False, jvm_options: tuple[str, ...] = (), **spec):
        self.listen, self.south, self.rest = free_port(), free_port(), free_port()
        self.prefix = "b" + secrets.token_hex(2) + "-"
        scheme = "ssl" if ssl else "tcp"
        self.platform = uno_platform.up(TestbedSpec(prefix=self.prefix, controller=f"{scheme}:127.0.0.1:{self.south}",
                                                    **spec))
        self.oneswitch = None
        self.jvm_options = jvm_options
        self.logdir = pathlib.Path(tempfile.mkdtemp(prefix="bench-oneswitch-"))
        self.extra = ["--state-file", str(self.logdir / "state.json")] if durable else []
        try:
            self.start()
        except BaseException:
            self.close()
            raise

    def start(self) -> None:
        self.oneswitch = start_oneswitch(f"{self.platform.description['state_dir']}/platform.json",
                                         self.logdir / "oneswitch.log", listen=self.listen, south=self.south,
                                         rest_port=self.rest, controller=None, extra=self.extra,
                                         jvm_options=self.jvm_options)
        wait_healthy(self.oneswitch, self.rest, timeout=60)

    def kill(self) -> None:
        self.oneswitch.kill()

    def restart(self) -> None:
        self.oneswitch.stop()
        self.start()

    @property
    def target(self) -> str:
        return f"tcp:127.0.0.1:{self.listen}"

    def close(self) -> None:
        if self.oneswitch is not None:
            self.oneswitch.stop()
        if os.environ.get("BENCH_KEEP_LOGS"):
            print(f"bench oneswitch: logs and state kept in {self.logdir}")
        else:
            shutil.rmtree(self.logdir, ignore_errors=True)
        problems = uno_platform.down(self.prefix)
        if problems:
            print(f"bench oneswitch: tear-down problems: {problems}")


# -- 1. flow_mod installation rate ---------------------------------------------------------------

def usage(pid: int) -> tuple[float, int]:
    """User and system CPU seconds of process `pid` so far, and its minor page faults (each a first touch of a page
    the kernel must map and zero), from one read of /proc/`pid`/stat."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # the state first
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), int(fields[7])


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process `pid` so far."""
    return usage(pid)[0]


def flow_mod_client(target: str, mode: str, count: int, in_port: int | str, out_port: int) -> dict:
    result = subprocess.run(["java", "-XX:+UseSerialGC", "-cp", str(JAR), "org.uno.oneswitch.bench.FlowModBench",
                             target, mode, str(count), str(in_port), str(out_port)],
                            capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise RuntimeError(f"FlowModBench {target} {mode} failed: {result.stderr.strip()}")
    run = json.loads(result.stdout)
    if run["errors"]:
        raise RuntimeError(f"FlowModBench {target} {mode}: {run['errors']} flow_mods refused")
    return run


# OneSwitch's own tables on a bridge (translate/Layout: dispatch, clear, egress, pop), which no virtual rule empties
FIXED_TABLES = ("table=0,", "table=251,", "table=252,", "table=253,")


def clear_rules(target: str, bridges: list[str]) -> None:
    ofctl(target, "del-flows")
    for t in bridges:  # the bridges hold only OneSwitch's fixed tables again before the next run
        wait_for(lambda t=t: not any("n_packets" in f and not any(fixed in f for fixed in FIXED_TABLES)
                                     for f in ofctl(t, "dump-flows").stdout.splitlines()), 60, f"{t} to empty")


class NullProxies:
    """The two proxies that parse nothing (see the module's docstring), in front of one bridge socket."""

    def __init__(self, bridge_socket: str, workdir: pathlib.Path):
        binary = workdir / "nullproxy"
        subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-o", str(binary), str(NULL_PROXY_C)], check=True)
        self.ports = {"c_null": free_port(), "java_null": free_port()}
        java = ["java", "-cp", str(JAR), "org.uno.oneswitch.bench.NullProxy"]
        self.procs = [Proc("nullproxy", [str(binary), str(self.ports["c_null"]), bridge_socket],
                           workdir / "nullproxy.log"),
                      Proc("java-nullproxy", [*java, str(self.ports["java_null"]), bridge_socket],
                           workdir / "java-nullproxy.log")]
        for proc, port in zip(self.procs, self.ports.values(), strict=True):
            wait_for(lambda proc=proc, port=port: _listening(proc, port), 30, f"{proc.name} on port {port}")

    def targets(self) -> dict[str, str]:
        return {name: f"tcp:127.0.0.1:{port}" for name, port in self.ports.items()}

    @property
    def pids(self) -> dict[str, int]:
        return {name: proc.pid for name, proc in zip(self.ports, self.procs, strict=True)}

    def close(self) -> None:
        for proc in self.procs:
            proc.stop()


def _cpu_medians(runs: list[dict]) -> dict:
    """Per party (client, bridge, proxy), the median over trials of the CPU µs it spent per flow_mod; and the sum."""
    medians = {party: round(statistics.median(run[party] for run in runs), 2) for party in runs[0]}
    return medians | {"total": round(sum(medians.values()), 2)}


def _listening(proc: Proc, port: int) -> bool:
    assert proc.alive(), f"{proc.name} exited:\n{proc.tail()}"
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def flow_mod_rates() -> dict:
    stack = Stack(vms=2)
    durable = proxies = None
    try:
        durable = Stack(durable=True, vms=2)
        desc = stack.platform.description
        host = stack.platform.switch("host")
        direct, virtual = host["openflow"], stack.target
        bridges = [s["openflow"] for s in desc["switches"]]
        durable_bridges = [s["openflow"] for s in durable.platform.description["switches"]]
        ports = {p["name"]: p["ofport"] for p in host["ports"]}
        vm0, vm1 = (ports[vm["port"]] for vm in desc["vms"])
        pcie = next(p["ofport"] for p in host["ports"] if p["kind"] == "pcie")
        # Virtual ports (auto-mapped in description order): 1, 2 = the VMs, 3 = the wire port.
        workloads = {"local": {"direct": (vm0, vm1), "oneswitch": (1, 2)},
                     "crossing": {"direct": (vm0, pcie), "oneswitch": (1, 3)}}
        proxies = NullProxies(direct[len("unix:"):], stack.logdir)
        host_bridge = stack.platform.ovs("host").pid("ovs-vswitchd")
        baselines = proxies.targets()

        def run(target, mode, ports_, bridges_=bridges, pids=None):
            """The rate, the CPU µs each party spent per flow_mod (the client's own while its clock ran, not its
            start-up nor its encoding, and those of `pids`: party -> pid, None for no such party), and the page
            faults of `pids` per flow_mod."""
            running = {party: pid for party, pid in (pids or {}).items() if pid is not None}
            before = {party: usage(pid) for party, pid in running.items()}
            r = flow_mod_client(target, *MODES[mode], *ports_)
            after = {party: usage(pid) for party, pid in running.items()}
            count = MODES[mode][1]
            spent = {"client": r["cpu_seconds"] * 1e6 / count} | {
                party: (after[party][0] - before[party][0]) * 1e6 / count for party in running}
            faults = {party: (after[party][1] - before[party][1]) / count for party in running}
            clear_rules(target, bridges_)
            return r["rate"], spent, faults

        for _ in range(WARMUP_RUNS):
            for w in workloads.values():
                for mode in ("barrier", "stream"):
                    run(virtual, mode, w["oneswitch"])
            for mode in ("barrier", "stream"):
                run(baselines["java_null"], mode, workloads["local"]["direct"])
                run(durable.target, mode, workloads["local"]["oneswitch"], durable_bridges)
        results = {}
        for name, w in workloads.items():
            results[name] = {}
            clients = {"direct": (direct, w["direct"], bridges, {"bridge": host_bridge, "proxy": None})}
            if name == "local":  # the proxies carry the client's own messages to the host bridge
                clients.update({b: (target, w["direct"], bridges, {"bridge": host_bridge, "proxy": proxies.pids[b]})
                                for b, target in baselines.items()})
                clients["oneswitch_durable"] = (durable.target, w["oneswitch"], durable_bridges,
                                                {"bridge": durable.platform.ovs("host").pid("ovs-vswitchd"),
                                                 "proxy": durable.oneswitch.pid})
            clients["oneswitch"] = (virtual, w["oneswitch"], bridges, {"bridge": host_bridge,
                                                                       "proxy": stack.oneswitch.pid})
            for mode in MODES:
                trials = {client: [] for client in clients}
                spent = {client: [] for client in clients}
                faults = {client: [] for client in clients}
                for _ in range(TRIALS):
                    for client, (target, ports_, bridges_, pids) in clients.items():
                        rate, cpu, faulted = run(target, mode, ports_, bridges_, pids)
                        trials[client].append(rate)
                        spent[client].append(cpu)
                        faults[client].append(faulted)
                rates = {client: statistics.median(xs) for client, xs in trials.items()}
                d, o = rates["direct"], rates["oneswitch"]
                row = {"count": MODES[mode][1], "direct_rate": round(d, 1), "oneswitch_rate": round(o, 1),
                       "ratio": round(o / d, 3)}
                for b in baselines:
                    if b in rates:
                        row[f"{b}_rate"] = round(rates[b], 1)
                        row[f"{b}_ratio"] = round(rates[b] / d, 3)
                        row[f"oneswitch_vs_{b}"] = round(o / rates[b], 3)
                if "oneswitch_durable" in rates:
                    row["oneswitch_durable_rate"] = round(rates["oneswitch_durable"], 1)
                    row["oneswitch_durable_ratio"] = round(rates["oneswitch_durable"] / d, 3)
                    row["durable_vs_oneswitch"] = round(rates["oneswitch_durable"] / o, 3)
                row.update({f"{client}_trials": [round(x) for x in xs] for client, xs in trials.items()})
                row["cpu_us_per_flow_mod"] = {client: _cpu_medians(runs) for client, runs in spent.items()}
                row["faults_per_flow_mod"] = {client: {party: [round(run[party], 3) for run in runs]
                                                       for party in runs[0]} for client, runs in faults.items()}
                results[name][mode] = row
    finally:
        if proxies is not None:
            proxies.close()
        if durable is not None:
            durable.close()
        stack.close()
    headline = {mode: results["local"][mode]["ratio"] for mode in MODES}
    ceiling = {mode: results["local"][mode]["c_null_ratio"] for mode in MODES}
    durability = {mode: results["local"][mode]["durable_vs_oneswitch"] for mode in MODES}
    return {"benchmark": "oneswitch flow_mod installation", "unit": "flow_mods per second (median of trials)",
            "target_ratio": TARGET_RATIO, "ratio": headline,
            "met": {mode: r >= TARGET_RATIO for mode, r in headline.items()},
            "null_proxy_ceiling": ceiling, "durable_vs_oneswitch": durability, "workloads": results,
            "environment": {**environment(), "baseline": "same client, host bridge's management Unix socket",
                            "oneswitch": "TCP to OneSwitch's passive listener; OneSwitch to the bridges over their "
                                         "management sockets",
                            "c_null": "TCP to bench/nullproxy.c, which copies bytes to and from the bridge's "
                                      "management socket (local workload only)",
                            "java_null": "TCP to org.uno.oneswitch.bench.NullProxy (OneSwitch's JVM options, Netty "
                                         "epoll, one event loop), copying bytes likewise (local workload only)",
                            "oneswitch_durable": "a second OneSwitch, with --state-file on this machine's disk, on a "
                                                 "platform of its own (local workload only)"}}


# -- 2. the §5.4 translation workload --------------------------------------------------------------

# Share of the rules of the metered pass that apply a meter (rules on ports of every switch among them).
METER_SHARE = 0.05


def translation(seed: int = 54) -> dict:
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="bench-translation-"))
    env = verifier.Environment(workdir)
    try:
        report = verifier.verify(env, seed=seed, rule_count=PAPER_RULES, packet_count=PACKETS)
        health = rest(env.rest, "GET", "/v1/health")[1]
        # End to end: the same rules again into an empty OneSwitch, streamed, until the bridges' barriers answer.
        verifier.clear(env)
        rng = random.Random(seed)
        ports = sorted(m["virtual_port"] for m in env.port_map)
        groups = rulegen.generate_groups(rng, ports, 6)
        specs = rulegen.generate(rng, ports, PAPER_RULES, groups)
        client = OfClient(env.listen)
        try:
            for g in groups:
                client.send(rulegen.group_mod(client.dp, g))
            client.barrier()
            before = rest(env.rest, "GET", "/v1/health")[1]
            start = time.perf_counter()
            for spec in specs:
                client.send(rulegen.flow_mod(client.dp, spec))
            errors = [m for m in client.barrier(timeout=300) if m.msg_type == client.ofp.OFPT_ERROR]
            elapsed = time.perf_counter() - start
            after = rest(env.rest, "GET", "/v1/health")[1]
        finally:
            client.close()
        # The same workload with a share of the rules applying one meter, on ports of every switch: the host
        # becomes the pipeline home (oneswitch/DESIGN.md, "Meters").
        verifier.clear(env)
        metered = verifier.verify(env, seed=seed, rule_count=PAPER_RULES, packet_count=PACKETS,
                                  meter_share=METER_SHARE)
    finally:
        env.close()
        shutil.rmtree(workdir, ignore_errors=True)
    installed = report.virtual_rules["installed"]
    flows, groups_phys = report.physical["flows"], report.physical["groups"]
    # NORMAL's tables are a fixed cost per switch (verifier.py, _normal_table_entry), not one per rule
    per_rule = flows - report.physical["normal_tables"]
    own_ms = after["flow_mod_ms"] - before["flow_mod_ms"]
    return {
        "benchmark": "oneswitch translation, UNO paper §5.4 workload",
        "virtual_rules": report.virtual_rules, "virtual_groups": report.groups["generated"],
        "physical": report.physical,
        "physical_per_virtual": round(flows / installed, 3),
        "physical_per_virtual_without_normal_tables": round(per_rule / installed, 3),
        "physical_with_groups_per_virtual": round((flows + groups_phys) / installed, 3),
        "paper": {"virtual": PAPER_RULES, "physical": PAPER_PHYSICAL,
                  "ratio": round(PAPER_PHYSICAL / PAPER_RULES, 3)},
        "met": per_rule / installed <= PAPER_PHYSICAL / PAPER_RULES and report.ok() and metered.ok()
        and not metered.virtual_rules["refused_by_oneswitch"],
        "with_meters": {"meter_share": METER_SHARE, "virtual_rules": metered.virtual_rules,
                        "physical_per_virtual": metered.physical["flows_per_virtual_rule"],
                        "physical_per_switch": metered.physical["per_switch"],
                        "packets": metered.packets, "mismatches": metered.packets["mismatches"]},
        "verification": {"packets": report.packets, "mismatches": report.packets["mismatches"],
                         "seconds": report.seconds, "seed": seed},
        "translation_rate": {"virtual_rules_per_s_oneswitch_time": round(len(specs) / (own_ms / 1000), 1),
                             "virtual_rules_per_s_end_to_end": round(len(specs) / elapsed, 1),
                             "refused": len(errors), "health_during_run": health["physical_entries"]},
        "environment": environment(),
    }


# -- 3. remap latency -------------------------------------------------------------------------------

def remap_latency() -> dict:
    stack = Stack(vms=2)
    try:
        platform = stack.platform
        on_host = platform.add_port("host", stack.prefix + "nfh")
        on_snic = platform.add_port("snic0", stack.prefix + "nfs")
        assert rest(stack.rest, "POST", "/v1/ports", {"switch": "host", "port": on_host["name"],
                                                       "virtual_port": 10})[0] == 201
        ext = platform.description["ext"]["interfaces"][0]
        touching = ["priority=10,in_port=3,actions=output:10", "priority=10,in_port=10,actions=output:3",
                    f"priority=20,in_port=1,dl_dst={ext['mac']},actions=output:10",
                    "priority=30,in_port=10,udp,actions=mod_tp_dst:53,output:3", "priority=5,arp,actions=FLOOD"]
        with tempfile.NamedTemporaryFile("w", suffix=".flows") as f:
            others = [f"priority=100,in_port=1,dl_dst=02:00:00:{i >> 8 & 0xff:02x}:{i & 0xff:02x}:01,actions=output:2"
                      for i in range(1000)]
            f.write("\n".join(touching + others) + "\n")
            f.flush()
            ofctl(stack.target, "add-flows", f.name)
        targets = [{"switch": "snic0", "port": on_snic["name"]}, {"switch": "host", "port": on_host["name"]}]
        for _ in range(30):  # warm OneSwitch's JIT up, as a running daemon is
            for t in targets:
                assert rest(stack.rest, "PUT", "/v1/ports/10", t)[0] == 200
        inside, wall, stages = [], [], {}
        for _ in range(REMAPS // 2):
            for t in targets:
                start = time.perf_counter()
                status, body = rest(stack.rest, "PUT", "/v1/ports/10", t)
                wall.append((time.perf_counter() - start) * 1000)
                assert status == 200 and body["remap"]["drained"], body
                inside.append(body["remap"]["elapsed_ms"])
                for s in body["remap"]["stages"]:
                    stages.setdefault(s["stage"], []).append(s["elapsed_ms"])
                time.sleep(0.02)
    finally:
        stack.close()

    def summary(xs):
        xs = sorted(xs)
        return {"median": round(statistics.median(xs), 2), "p90": round(xs[int(len(xs) * 0.9)], 2),
                "max": round(xs[-1], 2)}
    return {"benchmark": "oneswitch remap latency (PUT /v1/ports/{n}, host <-> sNIC)",
            "unit": "milliseconds", "remaps": len(inside), "rules_touching_the_port": 5, "other_rules": 1000,
            "oneswitch": summary(inside), "rest_client": summary(wall),
            "stages": {k: summary(v) for k, v in stages.items()}, "environment": environment()}


# -- 4. SIGKILL during a bulk install -------------------------------------------------------------

def kill_recovery(seed: int = 15) -> dict:
    stack = Stack(durable=True, vms=2)
    try:
        target = killcheck.Target(listen=stack.listen, bridge=stack.platform.switch("host")["openflow"],
                                  kill=stack.kill, restart=stack.restart)
        start = time.monotonic()
        report = killcheck.install_with_kills(target, count=KILL_RULES, kills=KILLS, rng=random.Random(seed))
        seconds = time.monotonic() - start
        state_bytes = (stack.logdir / "state.json").stat().st_size
    finally:
        stack.close()
    return {"benchmark": "oneswitch: SIGKILL at random points of a bulk install, restart on the same state file",
            "rules": report.rules, "kills": report.kills, "acknowledged": report.acked, "refused": report.refused,
            "acknowledged_lost": len(report.lost), "refused_back": len(report.came_back),
            "oneswitch_and_bridge_differ": report.differ, "met": report.ok(), "seed": seed,
            "restart_seconds": report.restart_seconds, "seconds": round(seconds, 1), "state_file_bytes": state_bytes,
            "environment": environment()}


# -- 5. the pipeline home's cost to a homed port's packets ---------------------------------------------------

HOME_PPS = 2000
HOME_SECONDS = 3.0
HOME_ROUNDS = 3


def pipeline_home_cost() -> dict:
    """UDP between the sNIC's wire port and an endpoint on a port of the sNIC too: with the sNIC's own pipeline it
    stays on the sNIC; with the host as pipeline home it crosses the PCIe link to the host and back."""
    stack = Stack(vms=1)
    netns = stack.prefix + "sep"
    try:
        desc = stack.platform.description
        ext = desc["ext"]
        ext_ip = ext["interfaces"][0]["ip"]
        address, plen = ext_ip.split("/")
        endpoint_ip = ".".join(address.split(".")[:3] + [str((int(address.split(".")[3]) + 50) % 250 + 1)])
        port = stack.platform.add_port("snic0", stack.prefix + "sp")
        subprocess.run(["ip", "netns", "add", netns], check=True)
        subprocess.run(["ip", "-n", port["netns"], "link", "set", port["nf_ifname"], "netns", netns], check=True)
        for cmd in (["addr", "add", f"{endpoint_ip}/{plen}", "dev", port["nf_ifname"]],
                    ["link", "set", port["nf_ifname"], "up"], ["link", "set", "lo", "up"]):
            subprocess.run(["ip", "-n", netns, *cmd], check=True)
        assert rest(stack.rest, "POST", "/v1/ports", {"switch": "snic0", "port": port["name"],
                                                       "virtual_port": 10})[0] == 201
        ofctl(stack.target, "add-meter", "meter=1,pktps,band=type=drop,rate=1000000")
        # port 1, the VM on the host, keeps the meter's rules on two switches in the metered mode
        plain = ["priority=100,in_port=2,actions=output:10", "priority=100,in_port=10,actions=output:2",
                 "priority=100,in_port=1,actions=output:2"]
        metered = ["priority=100,in_port=2,actions=meter:1,output:10", "priority=100,in_port=10,actions=output:2",
                   "priority=100,in_port=1,actions=meter:1,output:2"]
        runs: dict[str, list[dict]] = {"plain": [], "pipeline_home": []}
        for _ in range(HOME_ROUNDS):
            for mode, flows in (("plain", plain), ("pipeline_home", metered)):
                for f in flows:
                    ofctl(stack.target, "add-flow", f)
                subprocess.run(["ip", "netns", "exec", ext["netns"], "ping", "-c", "2", "-i", "0.2", endpoint_ip],
                               capture_output=True, timeout=30)
                with NumberedUdp(ext["netns"], netns, endpoint_ip, flows=1, pps=HOME_PPS,
                                 seconds=HOME_SECONDS) as run:
                    pass
                lat = sorted(run.result["latencies"])
                runs[mode].append({"sent": sum(run.result["sent"].values()),
                                   "received": sum(run.result["received"].values()),
                                   "latency_median_us": round(statistics.median(lat) * 1e6, 1),
                                   "latency_p99_us": round(lat[int(len(lat) * 0.99)] * 1e6, 1)})
        log = (stack.logdir / "oneswitch.log").read_text()
        assert "pipeline home host" in log and "pipeline home none" in log, "the modes did not alternate"
    finally:
        subprocess.run(["ip", "netns", "del", netns], capture_output=True)
        stack.close()

    def med(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[mode])
    return {"benchmark": "oneswitch: UDP between two ports of the sNIC, with the host as pipeline home (a meter on "
                         "two switches) against the sNIC's own pipeline", "pps": HOME_PPS, "seconds": HOME_SECONDS,
            "rounds": runs, "median_latency_us": {m: med(m, "latency_median_us") for m in runs},
            "p99_latency_us": {m: med(m, "latency_p99_us") for m in runs},
            "latency_ratio": round(med("pipeline_home", "latency_median_us") / med("plain", "latency_median_us"), 2),
            "lost": {m: sum(r["sent"] - r["received"] for r in runs[m]) for m in runs},
            "environment": environment()}


def main(results_dir: pathlib.Path) -> dict:
    build_jar()
    out = {}
    for name, fn in (("oneswitch-translation", translation), ("oneswitch-remap", remap_latency),
                     ("oneswitch-kill", kill_recovery), ("oneswitch-pipeline-home", pipeline_home_cost),
                     ("oneswitch", flow_mod_rates)):
        report = fn()
        (results_dir / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
        out[name] = report
    t = out["oneswitch-translation"]
    return {"flow_mod_ratio": out["oneswitch"]["ratio"], "flow_mod_met": out["oneswitch"]["met"],
            "physical_per_virtual": t["physical_per_virtual"], "paper_ratio": t["paper"]["ratio"],
            "verified_packets": t["verification"]["packets"]["compared"], "mismatches": t["verification"]["mismatches"],
            "translation_rate": t["translation_rate"], "remap_ms": out["oneswitch-remap"]["oneswitch"],
            "durable_vs_oneswitch": out["oneswitch"]["durable_vs_oneswitch"],
            "kill": {k: out["oneswitch-kill"][k] for k in ("kills", "acknowledged", "acknowledged_lost", "met")}}
