"""Running OneSwitch next to an emulated platform: the jar, its REST health, OVS helpers.

Used by the integration tests, the benchmarks and the verifier. Every process started here is
stopped by its own handle (`Proc.stop`), never by name, so parallel runs and other engineers'
processes are left alone. Ports are chosen free at run time.
"""
from __future__ import annotations

import json
import os
import pathlib
import random
import socket
import subprocess
import time

from uno_oneswitch.appctl import Appctl
from uno_oneswitch.client import rest

ONESWITCH_DIR = pathlib.Path(__file__).resolve().parents[2]
JAR = pathlib.Path(os.environ.get("ONESWITCH_JAR", ONESWITCH_DIR / "target" / "oneswitch.jar"))


#: Listening ports for tests come from below the kernel's ephemeral range (32768-60999 by default): a port the kernel
#: handed out with bind(0) is soon handed out again as the local port of some client connection, and a server
#: started on it a moment later then fails with "Address already in use".
_PORTS = range(20000, 32000)


def free_port() -> int:
    """A port on 127.0.0.1 that nothing is bound to now, outside the ephemeral range."""
    for _ in range(200):
        port = random.choice(_PORTS)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {_PORTS}")


class Proc:
    """A process we started, its log file, and a way to stop exactly it."""

    def __init__(self, name: str, argv: list[str], log: pathlib.Path, **popen_kwargs):
        self.name, self.log, self.argv = name, log, argv
        self._log_file = open(log, "ab")
        self.popen = subprocess.Popen(argv, stdout=self._log_file, stderr=subprocess.STDOUT, **popen_kwargs)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self) -> None:
        if self.alive():
            self.popen.terminate()
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self._log_file.close()

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.alive():
            self.popen.kill()
            self.popen.wait()
        self._log_file.close()

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def wait_for(predicate, timeout: float, what: str, interval: float = 0.05):
    """Poll until `predicate()` is truthy and return it; TimeoutError naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def build_jar() -> pathlib.Path:
    """The jar, built if missing."""
    if not JAR.exists():
        subprocess.run(["mvn", "-q", "-B", "-DskipTests", "package"], cwd=ONESWITCH_DIR, check=True)
    return JAR


#: How OneSwitch's JVM is run (see oneswitch/README.md, "Build and run"): the throughput collector. A virtual rule
#: keeps objects alive (756 bytes for a local rule), which the default G1 copies between survivor spaces at a cost
#: that, measured on 50,000-rule runs here, about doubled OneSwitch's CPU per flow_mod. A fixed 1 GB young
#: generation: a flow_mod allocates a few KB of short-lived objects, and with the collector's adaptive sizing the young
#: generation kept shrinking and growing (page faults, more collections); fixed, OneSwitch's CPU per streamed flow_mod
#: (its deletion included) measured 3.6-4.3 us against 5.2-7.3 us, same runs (512 MB: 5.9 us).
JVM_OPTIONS = ("-XX:+UseParallelGC", "-Xmn1g", "-Xmx2g", "-XX:MaxDirectMemorySize=1g")


def start_oneswitch(platform_json: str | None, log: pathlib.Path, *, listen: int, south: int, rest_port: int,
                    controller: int | None, extra: list[str] = ()) -> Proc:
    """OneSwitch for the platform described in `platform_json`; over SSL to the bridges when the description
    has an `ssl` section (the platform was made with an ssl: controller)."""
    assert JAR.exists(), f"{JAR} missing: build it with `make oneswitch`"
    argv = ["java", *JVM_OPTIONS, "-jar", str(JAR), "--listen", f"ptcp:{listen}",
            *southbound_args(platform_json, south), "--rest", f"127.0.0.1:{rest_port}",
            "--controller", f"tcp:127.0.0.1:{controller}" if controller else "none", *extra]
    if platform_json:
        argv += ["--platform", platform_json]
    return Proc("oneswitch", argv, log)


def southbound_args(platform_json: str | None, south: int) -> list[str]:
    ssl = json.loads(pathlib.Path(platform_json).read_text()).get("ssl") if platform_json else None
    if not ssl:
        return ["--southbound", f"ptcp:{south}"]
    return ["--southbound", f"pssl:{south}", "--private-key", ssl["private_key"], "--certificate", ssl["certificate"],
            "--ca-cert", ssl["ca_cert"]]


def wait_healthy(proc: Proc, rest_port: int, controllers: int = 0, timeout: float = 30) -> dict:
    def ok():
        assert proc.alive(), f"OneSwitch exited:\n{proc.tail()}"
        try:
            status, health = rest(rest_port, "GET", "/v1/health")
        except OSError:
            return None
        if status == 200 and health["status"] == "ok" and health["controllers"] >= controllers:
            return health
        return None
    return wait_for(ok, timeout, "OneSwitch to see every switch and controller")


def ofctl(target: str, command: str, *args: str, check: bool = True, options: tuple[str, ...] = ()
          ) -> subprocess.CompletedProcess:
    """`ovs-ofctl -O OpenFlow13 [options] command target args...`."""
    result = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", *options, command, target, *args],
                            capture_output=True, text=True, timeout=60)
    if check and result.returncode != 0:
        raise AssertionError(f"ovs-ofctl {command} {target} {' '.join(args)} failed: {result.stderr}")
    return result


def switch_target(platform, switch_id: str) -> str:
    return platform.switch(switch_id)["openflow"]


def revalidate(platform) -> None:
    """Wait until every switch's datapath caches follow its flow table (DESIGN.md: OVS barrier semantics)."""
    for sw in platform.description["switches"]:
        with Appctl(sw["appctl"]) as a:
            a.call("revalidator/wait")
