"""Launching NF processes on either side of the platform, and finding them again.

The process launcher starts an NF binary in the chosen side's namespace and
cgroup (so the sNIC's CPU quota and accounting apply), detached from the agent
(its own session), so that NFs outlive an agent restart and are re-adopted by
pid + start time.
"""
from __future__ import annotations

import dataclasses
import logging
import pathlib
import subprocess
import time

from uno_agent.errors import AgentError, Conflict
from uno_platform import system
from uno_platform.base import Platform

log = logging.getLogger(__name__)
READY_TIMEOUT = 10.0


@dataclasses.dataclass(frozen=True)
class Instance:
    pid: int
    pid_start: int
    control: str


class LaunchError(AgentError):
    """The NF did not start (its log's last line says why)."""


class ProcessLauncher:
    """NFs as processes: `<bin_dir>/<binary> --iface IF --control SOCK [--config FILE]`."""

    def __init__(self, platform: Platform, bin_dir: pathlib.Path, run_dir: pathlib.Path):
        self.platform = platform
        self.bin_dir = bin_dir
        self.run_dir = run_dir
        run_dir.mkdir(parents=True, exist_ok=True)

    def binary(self, name: str) -> pathlib.Path:
        path = self.bin_dir / name
        if not path.is_file():
            raise Conflict(f"NF binary {path} is missing (build it with `make nfs`)")
        return path

    def start(self, instance_id: str, binary: str, side: str, iface: str,
              config_text: str | None) -> Instance:
        """Start the NF and wait until its control socket answers connections."""
        control = self.run_dir / f"{instance_id}.sock"
        control.unlink(missing_ok=True)
        argv = [str(self.binary(binary)), "--iface", iface, "--control", str(control)]
        if config_text is not None:
            config = self.run_dir / f"{instance_id}.conf"
            config.write_text(config_text)
            argv += ["--config", str(config)]
        logfile = self.run_dir / f"{instance_id}.log"
        with open(logfile, "ab") as log_out:
            proc = self.platform.spawn(side, argv, stdin=subprocess.DEVNULL, stdout=log_out,
                                       stderr=log_out, start_new_session=True)
        started = system.start_time(proc.pid)
        deadline = time.monotonic() + READY_TIMEOUT
        while not control.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                self.stop(proc.pid, started)
                proc.wait()
                raise LaunchError(f"{binary} on {side} did not start: {_last_line(logfile)}")
            time.sleep(0.01)
        log.info("started %s (%s) on %s as pid %d", instance_id, binary, side, proc.pid)
        return Instance(pid=proc.pid, pid_start=started, control=str(control))

    @staticmethod
    def alive(pid: int | None, pid_start: int | None) -> bool:
        return pid is not None and system.is_alive(pid, pid_start)

    def stop(self, pid: int | None, pid_start: int | None) -> None:
        if pid is not None:
            system.stop_process(pid, pid_start)

    def forget(self, instance_id: str) -> None:
        """Remove the instance's control socket and config (its log stays for the operator)."""
        for suffix in (".sock", ".conf"):
            (self.run_dir / f"{instance_id}{suffix}").unlink(missing_ok=True)


def _last_line(path: pathlib.Path) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return lines[-1] if lines else "no output"
