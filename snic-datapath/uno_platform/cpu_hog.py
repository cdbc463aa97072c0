"""Unrelated CPU load, as a real server always has: a process spinning on one core in a cgroup of its own.

Tests and benchmarks run what matters under it (`pytest --cpu-hog`, `make test-under-load`), so that a
result that only holds on a quiet machine shows up as a failure here rather than on an operator's
server. The hog is a plain busy loop: it competes for CPU time and wake-ups like any other tenant
process, with the default weight, and is stopped by whoever started it.
"""
from __future__ import annotations

import os
import subprocess
import sys

from uno_platform import system
from uno_platform.cgroups import SideCgroup, preexec_join

SPIN = "while True:\n    pass\n"


class CpuHog:
    """`with CpuHog(): ...` keeps one core busy in cgroup `uno/load-<pid>` for the block's duration."""

    def __init__(self, name: str | None = None):
        self.cgroup = SideCgroup.for_name(name or f"load-{os.getpid()}")
        self.proc: subprocess.Popen | None = None
        self._started: int | None = None

    def start(self) -> CpuHog:
        self.cgroup.create(None)
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", SPIN], stdin=subprocess.DEVNULL,
                                         preexec_fn=preexec_join(self.cgroup))
        except BaseException:
            self.cgroup.remove()
            raise
        self._started = system.start_time(self.proc.pid)
        return self

    def stop(self) -> None:
        if self.proc is not None:
            system.stop_process(self.proc.pid, self._started)
            self.proc.wait()
            self.proc = None
        self.cgroup.remove()

    def cpu_seconds(self) -> float:
        """CPU time the hog has used so far (it should be close to one core's worth of wall time)."""
        return self.cgroup.usage_seconds()

    def __enter__(self) -> CpuHog:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
