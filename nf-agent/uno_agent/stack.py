"""The whole of UNO on one platform with one command (`unoctl up` / `unoctl down`).

`up` brings up what is not running yet, in order, and waits for each part: the platform (its bridges
pointed at OneSwitch's southbound), OneSwitch (with a state file, so a restart keeps the rules), then the
agent. Each daemon runs detached, in a session of its own, with its log, its pid file (pid and start time,
so that a recycled pid is never taken for it) and its REST token (a random one, mode 0600) in the stack
directory `<state_dir>/<prefix>stack/`. Everything listens on 127.0.0.1 only. `down` stops the agent, then
OneSwitch, by the pids in their files, then takes the platform down and removes the agent's inventory and
OneSwitch's state file, which describe what went with it; logs and tokens stay for the operator.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import os
import pathlib
import secrets
import subprocess
import sys
import time

from uno_oneswitch.client import http_json

import uno_platform
from uno_platform import system

log = logging.getLogger(__name__)

ONESWITCH_JAR = pathlib.Path(__file__).resolve().parents[2] / "oneswitch" / "target" / "oneswitch.jar"
START_TIMEOUT_S = 60.0
STATE_FILES = ("inventory.db", "oneswitch-state.json")  # with their -wal, -shm, .tmp companions


class StackError(Exception):
    """A part of the stack did not come up or go down; the message says which and why, in one line."""


@dataclasses.dataclass(frozen=True)
class Endpoints:
    """Where the stack's daemons listen (all on 127.0.0.1) and what OneSwitch connects to."""

    controller: str = "none"        # the SDN controller OneSwitch connects to (tcp:IP:PORT), or none
    openflow: int = 6634            # OneSwitch's passive OpenFlow listener (controllers, ovs-ofctl)
    southbound: int = 6643          # where the platform's bridges connect to OneSwitch
    oneswitch_rest: int = 8181
    agent: int = 8774


@dataclasses.dataclass(frozen=True)
class Daemon:
    """One of the stack's daemons: its name, command line and whether it answers yet."""

    name: str
    argv: list[str]
    url: str
    ready_path: str
    token_file: pathlib.Path


def stack_dir(prefix: str, state_dir: str) -> pathlib.Path:
    return pathlib.Path(state_dir) / f"{prefix}stack"


def up(spec: uno_platform.TestbedSpec, endpoints: Endpoints, profile: str = "emulated",
       jar: pathlib.Path = ONESWITCH_JAR) -> dict:
    """Brings up what of the stack is not running; returns {"platform", "daemons": {name: {pid, log, url,
    token_file}}}. StackError (with the part's log tail) when a part does not come up. On the remote profile the
    sNICs' bridges reach OneSwitch across their management links, so its southbound takes SSL only."""
    if not jar.exists():
        raise StackError(f"{jar} is missing: build it with `make oneswitch`")
    south = f"{'ssl' if profile == 'remote' else 'tcp'}:127.0.0.1:{endpoints.southbound}"
    platform = _platform(spec, south, profile)
    directory = stack_dir(spec.prefix, spec.state_dir)
    directory.mkdir(parents=True, exist_ok=True)
    daemons = [_oneswitch(platform, directory, endpoints, jar), _agent(spec, directory, endpoints)]
    return {"platform": platform.description["state_dir"],
            "daemons": {d.name: _ensure_running(d, directory) for d in daemons}}


def down(prefix: str, state_dir: str) -> list[str]:
    """Stops the agent, then OneSwitch, then takes the platform down; returns the problems met."""
    directory = stack_dir(prefix, state_dir)
    problems = []
    for name in ("uno-agent", "oneswitch"):
        pidfile = directory / f"{name}.pid"
        record = _read_pidfile(pidfile)
        if record is not None:
            system.stop_process(record["pid"], record["start"], group=True, grace=10.0)
            if system.is_alive(record["pid"], record["start"]):
                problems.append(f"{name} (pid {record['pid']}) did not stop")
                continue
        pidfile.unlink(missing_ok=True)
    if not problems:
        problems += uno_platform.down(prefix, state_dir)
    if not problems:  # what they describe (servers, rules on these bridges) is gone with the platform
        for name in STATE_FILES:
            for path in directory.glob(f"{name}*"):
                path.unlink()
    return problems


def _platform(spec: uno_platform.TestbedSpec, south: str, profile: str) -> uno_platform.Platform:
    """The platform of `spec`, made with its bridges pointed at `south` unless it already runs (then it must
    point there)."""
    if spec.prefix in uno_platform.list_prefixes(spec.state_dir):
        platform = uno_platform.load(spec.prefix, spec.state_dir)
        if platform.description.get("controller") != south:
            raise StackError(f"platform {spec.prefix} points its bridges at "
                             f"{platform.description.get('controller')}, not OneSwitch's southbound {south}: "
                             f"take it down first (unoctl down --prefix {spec.prefix})")
        return platform
    try:
        return uno_platform.up(dataclasses.replace(spec, controller=south), profile)
    except uno_platform.PlatformError as exc:
        raise StackError(f"platform {spec.prefix}: {exc}") from None


def _oneswitch(platform, directory: pathlib.Path, endpoints: Endpoints, jar: pathlib.Path) -> Daemon:
    token = _token(directory / "oneswitch.token")
    argv = ["java", "-jar", str(jar), "--platform", f"{platform.description['state_dir']}/platform.json",
            "--controller", endpoints.controller, "--listen", f"ptcp:{endpoints.openflow}:127.0.0.1",
            *southbound_args(platform.description, f"{endpoints.southbound}:127.0.0.1"),
            "--rest", f"127.0.0.1:{endpoints.oneswitch_rest}", "--rest-token-file", str(token),
            "--state-file", str(directory / "oneswitch-state.json")]
    return Daemon("oneswitch", argv, f"http://127.0.0.1:{endpoints.oneswitch_rest}", "/v1/health", token)


def southbound_args(description: dict, listen: str) -> list[str]:
    """OneSwitch's southbound flags for the platform of `description`, listening on `listen` (PORT[:IP]): with
    the certificates the platform made when its bridges connect with SSL."""
    ssl = description.get("ssl")
    if not ssl:
        return ["--southbound", f"ptcp:{listen}"]
    return ["--southbound", f"pssl:{listen}", "--private-key", ssl["private_key"], "--certificate",
            ssl["certificate"], "--ca-cert", ssl["ca_cert"]]


def _agent(spec: uno_platform.TestbedSpec, directory: pathlib.Path, endpoints: Endpoints) -> Daemon:
    token = _token(directory / "uno-agent.token")
    config = directory / "uno-agent.json"
    config.write_text(json.dumps({
        "listen": f"127.0.0.1:{endpoints.agent}",
        "platform": {"prefix": spec.prefix, "state_dir": spec.state_dir},
        "token_file": str(token),
        "oneswitch_url": f"http://127.0.0.1:{endpoints.oneswitch_rest}",
        "oneswitch_token_file": str(directory / "oneswitch.token"),
        "oneswitch_openflow": f"tcp:127.0.0.1:{endpoints.openflow}",
    }, indent=2) + "\n")
    argv = [sys.executable, "-m", "uno_agent.daemon", "--config", str(config),
            "--database", str(directory / "inventory.db")]
    return Daemon("uno-agent", argv, f"http://127.0.0.1:{endpoints.agent}", "/health", token)


def _token(path: pathlib.Path) -> pathlib.Path:
    """A random REST token in `path` (kept if it exists: clients may hold it), readable by its owner only."""
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32) + "\n")
    return path


def _ensure_running(daemon: Daemon, directory: pathlib.Path) -> dict:
    """Starts `daemon` unless its pid file names a live process; waits until it answers."""
    pidfile, logfile = directory / f"{daemon.name}.pid", directory / f"{daemon.name}.log"
    record = _read_pidfile(pidfile)
    if record is None or not system.is_alive(record["pid"], record["start"]):
        with open(logfile, "ab") as out:
            proc = subprocess.Popen(daemon.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                    start_new_session=True)
        record = {"pid": proc.pid, "start": system.start_time(proc.pid), "argv": daemon.argv}
        tmp = pidfile.with_suffix(".tmp")
        tmp.write_text(json.dumps(record) + "\n")
        tmp.rename(pidfile)
        log.info("started %s as pid %d", daemon.name, proc.pid)
    _wait_ready(daemon, record, logfile)
    return {"pid": record["pid"], "log": str(logfile), "url": daemon.url, "token_file": str(daemon.token_file)}


def _wait_ready(daemon: Daemon, record: dict, logfile: pathlib.Path) -> None:
    token = daemon.token_file.read_text().strip()
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if not system.is_alive(record["pid"], record["start"]):
            raise StackError(f"{daemon.name} exited; the end of {logfile}: {system.last_line(logfile)}")
        try:
            status, body = http_json(daemon.url + daemon.ready_path, headers={"X-Auth-Token": token}, timeout=2)
        except OSError:
            status, body = None, None
        if status == 200 and (not isinstance(body, dict) or body.get("status", "ok") == "ok"):
            return
        time.sleep(0.2)
    raise StackError(f"{daemon.name} did not answer {daemon.url}{daemon.ready_path} within {START_TIMEOUT_S:g} s; "
                     f"see {logfile}")


def _read_pidfile(path: pathlib.Path) -> dict | None:
    try:
        record = json.loads(path.read_text())
        return record if isinstance(record, dict) and isinstance(record.get("pid"), int) else None
    except (OSError, ValueError):
        return None
