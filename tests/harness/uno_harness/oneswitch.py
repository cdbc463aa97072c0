"""Running OneSwitch next to an emulated platform: the jar, its REST health, OVS helpers.

Used by the integration tests, the benchmarks and the verifier.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess

from uno_oneswitch.appctl import Appctl
from uno_oneswitch.client import rest

from uno_agent import stack
from uno_harness.processes import Proc, wait_for

ONESWITCH_DIR = pathlib.Path(__file__).resolve().parents[3] / "oneswitch"
JAR = pathlib.Path(os.environ.get("ONESWITCH_JAR", ONESWITCH_DIR / "target" / "oneswitch.jar"))


def build_jar() -> pathlib.Path:
    """The jar, built if missing."""
    if not JAR.exists():
        subprocess.run(["mvn", "-q", "-B", "-DskipTests", "package"], cwd=ONESWITCH_DIR, check=True)
    return JAR


def start_oneswitch(platform_json: str | None, log: pathlib.Path, *, listen: int, south: int, rest_port: int,
                    controller: int | None, extra: list[str] = (), jvm_options: tuple[str, ...] = ()) -> Proc:
    """OneSwitch for the platform described in `platform_json`; over SSL to the bridges when the description
    has an `ssl` section (the platform was made with an ssl: controller). Its JVM runs with the JVM's own settings,
    as `unoctl up` and the systemd unit run it, unless `jvm_options` says otherwise (benchmarks comparing
    collectors)."""
    assert JAR.exists(), f"{JAR} missing: build it with `make oneswitch`"
    argv = ["java", *jvm_options, "-jar", str(JAR), "--listen", f"ptcp:{listen}",
            *southbound_args(platform_json, south), "--rest", f"127.0.0.1:{rest_port}",
            "--controller", f"tcp:127.0.0.1:{controller}" if controller else "none", *extra]
    if platform_json:
        argv += ["--platform", platform_json]
    return Proc("oneswitch", argv, log)


def southbound_args(platform_json: str | None, south: int) -> list[str]:
    description = json.loads(pathlib.Path(platform_json).read_text()) if platform_json else {}
    return stack.southbound_args(description, str(south))


def wait_healthy(proc: Proc, rest_port: int, controllers: int = 0, timeout: float = 30, platform=None) -> dict:
    """OneSwitch's health once it sees every switch and `controllers` controllers. With the `platform` of a first
    start, a bridge not connected when OneSwitch first answers is pointed at its controller afresh
    (`reconnect_bridges`; never on a restart: that would flush the bridges' tables)."""
    def health():
        assert proc.alive(), f"OneSwitch exited:\n{proc.tail()}"
        try:
            status, answer = rest(rest_port, "GET", "/v1/health")
        except OSError:
            return None
        return answer if status == 200 else None

    if platform is not None:
        first = wait_for(health, timeout, "OneSwitch's REST API")
        reconnect_bridges(platform, [s["id"] for s in first["switches"] if not s["connected"]])

    def ok():
        answer = health()
        return answer if answer and answer["status"] == "ok" and answer["controllers"] >= controllers else None
    return wait_for(ok, timeout, "OneSwitch to see every switch and controller")


def reconnect_bridges(platform, switch_ids: list[str]) -> None:
    """Give the bridges of `switch_ids` a new controller connection, which Open vSwitch opens at once. A bridge
    set up before OneSwitch listened has tried its controller and waits out its backoff: its first try times out
    after 1 s (OneSwitch's JVM takes about as long to start), the next comes 1 s later, so that every stack start
    waited about 1.3 s for nothing. (`ovs-appctl bridge/reconnect` leaves a connection that is not up alone.)
    For bridges that OneSwitch has not programmed yet only: Open vSwitch flushes a bridge's flows, groups and
    meters when its last controller is removed."""
    for sw in switch_ids:
        bridge = platform.switch(sw)["bridge"]
        target = platform.vsctl(sw, "get-controller", bridge)
        platform.vsctl(sw, "del-controller", bridge)   # two transactions: in one, the target would not change
        platform.vsctl(sw, "set-controller", bridge, target)


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
