"""Thin wrappers over the system tools the platform drives (ip, tc, ethtool, processes).

Every failure becomes a PlatformError whose message is one line: the command and
the last line it printed on stderr.
"""
from __future__ import annotations

import logging
import os
import pathlib
import signal
import subprocess
import time
from collections.abc import Sequence

from uno_platform.errors import PlatformError

log = logging.getLogger(__name__)


def run(argv: Sequence[str], *, netns: str | None = None, check: bool = True,
        env: dict | None = None, timeout: float = 30.0) -> str:
    """Run a command (in `netns` if given) and return its stdout."""
    full = (["ip", "netns", "exec", netns] if netns else []) + list(argv)
    log.debug("run %s", " ".join(full))
    try:
        proc = subprocess.run(full, capture_output=True, text=True, timeout=timeout,
                              env=None if env is None else {**os.environ, **env})
    except FileNotFoundError:
        raise PlatformError(f"{full[0]} is not installed (run `make deps`)") from None
    except subprocess.TimeoutExpired:
        raise PlatformError(f"{' '.join(full)} did not finish within {timeout:g} s") from None
    if check and proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        reason = lines[-1] if lines else f"exit status {proc.returncode}"
        raise PlatformError(f"{' '.join(full)}: {reason}")
    return proc.stdout


def netns_list() -> list[str]:
    out = run(["ip", "netns", "list"])
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def netns_pids(netns: str) -> list[int]:
    out = run(["ip", "netns", "pids", netns], check=False)
    return [int(p) for p in out.split()]


def links(netns: str | None = None) -> list[str]:
    """The names of the links in `netns` (None: this process's namespace), a veth's without its "@peer"."""
    out = run(["ip", *(["-n", netns] if netns else []), "-o", "link", "show"])
    return [line.split(":")[1].strip().split("@")[0] for line in out.splitlines() if line.strip()]


def link_exists(name: str, netns: str | None = None) -> bool:
    argv = ["ip"] + (["-n", netns] if netns else []) + ["link", "show", "dev", name]
    return subprocess.run(argv, capture_output=True).returncode == 0


# -- processes ------------------------------------------------------------------------------

def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None if it is gone.

    Stored beside a pid so that a recycled pid is never mistaken for ours.
    """
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    # comm (field 2) may contain spaces; fields after the closing parenthesis are fixed.
    return int(stat.rsplit(")", 1)[1].split()[19])


def is_alive(pid: int, started: int | None) -> bool:
    now = start_time(pid)
    return now is not None and (started is None or now == started) and not _exited(pid)


def _exited(pid: int) -> bool:
    """Whether every thread of the process has exited (zombies, or gone). Its main thread can be a
    zombie while others still run their exit, and hold its memory (a DPDK switch's hugepages)."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return True
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                    return False
        except OSError:
            continue  # that thread is gone
    return True


def _died_within(pid: int, started: int | None, timeout: float, interval: float) -> bool:
    """Whether the process is dead (every thread exited) within `timeout` s, looking every `interval` s."""
    deadline = time.monotonic() + timeout
    while is_alive(pid, started):
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
    return True


def kill_and_wait(pid: int, timeout: float = 2.0) -> None:
    """SIGKILL `pid` and wait until it is dead (every thread exited), as a crash would leave it."""
    os.kill(pid, signal.SIGKILL)
    _died_within(pid, None, timeout, 0.005)


def stop_process(pid: int, started: int | None, *, group: bool = False, grace: float = 3.0) -> bool:
    """SIGTERM the process (and its process group if `group`), SIGKILL after `grace` s, and wait
    up to `grace` s more for it to die.

    Returns False if the pid no longer belongs to the process we started.
    """
    if not is_alive(pid, started):
        return False
    kill = (lambda sig: os.killpg(pid, sig)) if group else (lambda sig: os.kill(pid, sig))
    try:
        kill(signal.SIGTERM)
    except ProcessLookupError:
        return False
    if _died_within(pid, started, grace, 0.02):
        return True
    try:
        kill(signal.SIGKILL)
    except ProcessLookupError:
        return True
    # Only once it is dead has the kernel taken back its memory (hugepages included),
    # which whoever stopped it may be about to count or give back.
    _died_within(pid, started, grace, 0.02)
    return True


def wait_for(predicate, timeout: float, what: str, interval: float = 0.02) -> None:
    """Poll `predicate` until true; PlatformError naming `what` on timeout."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise PlatformError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def last_line(path: pathlib.Path) -> str:
    """The last line of a log (what a process that died last said), or why there is none."""
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return lines[-1] if lines else "no output"
