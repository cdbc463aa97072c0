"""OneSwitch soak (issue 15): 10 minutes of everything a hostile or unlucky environment does at once.

While a client acting as the controller installs rules with a barrier after every 100 and ping runs between two
VMs, other threads send random and mutated OpenFlow to the passive and the (SSL) southbound listener and garbage to
the REST port, hold connections that never read their flow-stats replies, hold HTTP requests that never finish,
and OneSwitch is SIGKILLed and restarted on its state file every minute. Measured:
- crashes: OneSwitch found dead when it was not killed;
- acknowledged rules lost: after every restart and at the end, rule by rule, in OneSwitch and on the host bridge
  (uno_harness.killcheck);
- resident size, sampled every second, against a cap: OneSwitch runs here with its heap and Netty's buffers
  capped (JVM_OPTIONS), so that what the attackers make it hold shows against a bound, not against the JVM's
  default heap sizing (a quarter of the machine's memory);
- echo on a fresh connection every 0.25 s: p50/p99 outside the restart windows (the baseline of the same run is
  the first 20 s, before any attacker starts).

    SOAK_SECONDS=120 BENCH=soak make bench      # a shorter run
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import statistics
import subprocess
import threading
import time

from uno_oneswitch.ofclient import OfClient

from bench.bench_oneswitch import Stack, environment
from uno_harness import killcheck
from uno_harness.attacks import SlowHttp, SlowReader, abuse, echo_seconds, rss_bytes, streams
from uno_harness.oneswitch import build_jar, ofctl, revalidate

SECONDS = int(os.environ.get("SOAK_SECONDS", "600"))
KILL_EVERY = int(os.environ.get("SOAK_KILL_EVERY", "60"))
#: Which attackers run (all by default); naming fewer tells which one costs what.
ATTACKS = os.environ.get("SOAK_ATTACKS", "garbage,slow_readers,slow_http").split(",")
BASELINE_SECONDS = 20
JVM_OPTIONS = ("-Xmx2g", "-XX:MaxDirectMemorySize=1g")
#: The heap, Netty's buffers, and 512 MiB for the JVM itself (code, metaspace, threads).
RSS_CAP = (2 << 30) + (1 << 30) + (512 << 20)
ECHO_P99_TARGET_MS = 50
CHUNK = 100
MAX_RULES = 20_000
GARBAGE_PRIORITY = 7


class Soak:
    def __init__(self, stack: Stack):
        self.stack = stack
        self.stop = threading.Event()
        self.attack = threading.Event()       # set once the baseline is measured
        self.up = threading.Event()           # clear while OneSwitch is being restarted
        self.up.set()
        self.lock = threading.Lock()
        self.acked: set[int] = set()
        self.refused: set[int] = set()
        self.next_rule = 0
        self.echo: list[tuple[float, float, bool]] = []   # (when, seconds, attacking)
        self.echo_failures = 0
        self.rss: list[int] = []
        self.crashes = 0
        self.attacks = {"garbage_streams": 0, "slow_readers": 0, "slow_readers_closed": 0, "slow_http": 0,
                        "slow_http_closed": 0}
        self.report = killcheck.Report(rules=0)
        self.target = killcheck.Target(listen=stack.listen, bridge=stack.platform.switch("host")["openflow"],
                                       kill=stack.kill, restart=stack.restart)

    def _loop(self, fn, pause: float, attacker: bool = False) -> threading.Thread:
        def run():
            while not self.stop.is_set():
                if attacker and not self.attack.is_set():
                    self.stop.wait(0.5)
                    continue
                try:
                    fn()
                except (OSError, ConnectionError, AssertionError, ValueError):
                    pass  # OneSwitch restarting, or closing the abuser: both expected
                self.stop.wait(pause)
        t = threading.Thread(target=run, daemon=True)
        t.start()
        return t

    # -- workers ----------------------------------------------------------------------------------

    def install(self) -> None:
        self.up.wait()
        client = OfClient(self.stack.listen)
        try:
            while not self.stop.is_set():
                with self.lock:
                    # Past MAX_RULES the same rules are added again (a replace): flow_mods go on, the table stays.
                    batch = [i % MAX_RULES for i in range(self.next_rule, self.next_rule + CHUNK)]
                    self.next_rule += CHUNK
                ok, no = killcheck.install(client, batch, self.target.in_port, self.target.out_port)
                with self.lock:
                    self.acked |= ok
                    self.refused |= no
                self.stop.wait(0.2)
        finally:
            client.close()

    def garbage(self, rng: random.Random) -> None:
        port = rng.choice([self.stack.listen, self.stack.south, self.stack.rest])
        _, payload, hello_first = rng.choice(streams(rng))
        if rng.random() < 0.5:
            # A valid flow_mod with a few bytes changed (OfClient's parsers are class attributes), at a priority
            # of its own so that the rule-by-rule check of the installed rules does not count what it adds.
            msg = killcheck.flow_mod(OfClient, rng.randrange(1 << 30), 1, 2)
            msg.priority = GARBAGE_PRIORITY
            msg.set_xid(7)
            msg.serialize()
            data = bytearray(msg.buf)
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            payload, hello_first = bytes(data), True
        abuse(port, payload, hello_first)
        self.attacks["garbage_streams"] += 1

    def slow_reader(self) -> None:
        with SlowReader(self.stack.listen, 2000) as r:
            self.attacks["slow_readers"] += 1
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not self.stop.is_set():
                if r.closed_by_peer():
                    self.attacks["slow_readers_closed"] += 1
                    return
                time.sleep(1)

    def slow_http(self) -> None:
        with SlowHttp("127.0.0.1", self.stack.rest, connections=8, body=random.random() < 0.5) as h:
            self.attacks["slow_http"] += 8
            self.stop.wait(15)
            self.attacks["slow_http_closed"] += h.closed_by_peer()

    def probe(self) -> None:
        if not self.up.is_set():
            return
        when = time.monotonic()
        try:
            took = echo_seconds(self.stack.listen, timeout=5)
        except (OSError, AssertionError):
            if self.up.is_set():
                self.echo_failures += 1
            return
        if self.up.is_set():
            self.echo.append((when, took, self.attack.is_set()))

    def sample_rss(self) -> None:
        try:
            self.rss.append(rss_bytes(self.stack.oneswitch.pid))
        except (FileNotFoundError, AssertionError):
            pass

    # -- the run ----------------------------------------------------------------------------------

    def kill_and_restart(self) -> None:
        if not self.stack.oneswitch.alive():
            self.crashes += 1
        self.up.clear()
        self.stack.kill()
        start = time.monotonic()
        self.stack.restart()
        self.report.restart_seconds.append(round(time.monotonic() - start, 2))
        self.report.kills += 1
        with self.lock:
            acked, refused = set(self.acked), set(self.refused)
        killcheck.check(self.target, acked, refused, self.report, f"after kill {self.report.kills}")
        self.up.set()

    def run(self) -> dict:
        rng = random.Random(2017)
        attackers = {"garbage": (lambda: self.garbage(rng), 0.05), "slow_readers": (self.slow_reader, 1.0),
                     "slow_http": (self.slow_http, 1.0)}
        threads = [self._loop(self.install, 0.2), self._loop(self.probe, 0.25), self._loop(self.sample_rss, 1.0)]
        threads += [self._loop(fn, pause, attacker=True) for name, (fn, pause) in attackers.items() if name in ATTACKS]
        vms = self.stack.platform.description["vms"]
        ping = subprocess.Popen(["ip", "netns", "exec", vms[0]["netns"], "ping", "-q", "-i", "0.2", "-w",
                                 str(SECONDS + 30), vms[1]["ip"].split("/")[0]],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        start = time.monotonic()
        try:
            time.sleep(BASELINE_SECONDS)
            self.attack.set()
            next_kill = start + KILL_EVERY
            while time.monotonic() - start < SECONDS:
                time.sleep(1)
                if not self.stack.oneswitch.alive():
                    self.crashes += 1
                    self.kill_and_restart()
                elif time.monotonic() >= next_kill:
                    self.kill_and_restart()
                    next_kill = time.monotonic() + KILL_EVERY
        finally:
            self.stop.set()
            for t in threads:
                t.join(timeout=60)
            ping.send_signal(signal.SIGINT)  # ping prints its summary on SIGINT only
            ping_out = ping.communicate(timeout=30)[0]
        with self.lock:
            acked, refused = set(self.acked), set(self.refused)
        killcheck.check(self.target, acked, refused, self.report, "at the end")
        return self.summary(acked, refused, ping_out, time.monotonic() - start)

    def summary(self, acked: set[int], refused: set[int], ping_out: str, seconds: float) -> dict:
        def pct(values: list[float], q: float) -> float:
            return round(statistics.quantiles(values, n=100)[q - 1] * 1000, 2) if len(values) >= 2 else None
        base = [s for _, s, attacking in self.echo if not attacking]
        under = [s for _, s, attacking in self.echo if attacking]
        loss = re.search(r"(\d+) packets transmitted, (\d+) received", ping_out)
        p99 = pct(under, 99)
        return {
            "benchmark": "oneswitch soak: random/mutated OpenFlow, slow readers, slow HTTP and SIGKILL/restart "
                         "while a client installs rules and traffic flows",
            "seconds": round(seconds), "kills": self.report.kills, "crashes": self.crashes,
            "rules_acknowledged": len(acked), "rules_refused": len(refused),
            "acknowledged_lost": len(self.report.lost), "refused_back": len(self.report.came_back),
            "oneswitch_and_bridge_differ": self.report.differ[:5],
            "restart_seconds": self.report.restart_seconds,
            "rss_max_mib": max(self.rss) >> 20 if self.rss else None, "rss_cap_mib": RSS_CAP >> 20,
            "echo_ms": {"baseline_p50": pct(base, 50), "baseline_p99": pct(base, 99),
                        "under_attack_p50": pct(under, 50), "under_attack_p99": p99,
                        "samples": len(self.echo), "failed_outside_restarts": self.echo_failures},
            "attacks": self.attacks, "attackers": ATTACKS, "kill_every_s": KILL_EVERY,
            "ping": {"sent": int(loss[1]), "received": int(loss[2])} if loss else ping_out[-300:],
            "met": (self.crashes == 0 and not self.report.lost and not self.report.came_back
                    and bool(self.rss) and max(self.rss) < RSS_CAP and p99 is not None and p99 < ECHO_P99_TARGET_MS),
            "environment": environment(),
        }


def main(results_dir) -> dict:
    build_jar()
    stack = Stack(durable=True, ssl=True, vms=2, jvm_options=JVM_OPTIONS)
    try:
        ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
        ofctl(stack.target, "add-flow", "priority=10,in_port=2,actions=output:1")
        revalidate(stack.platform)
        report = Soak(stack).run()
    finally:
        stack.close()
    (results_dir / "oneswitch-soak.json").write_text(json.dumps(report, indent=2) + "\n")
    return {k: report[k] for k in ("seconds", "kills", "crashes", "acknowledged_lost", "rss_max_mib", "echo_ms",
                                   "met")}
