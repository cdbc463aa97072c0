"""Processes the harnesses start: free ports, a handle that stops exactly the process it started (never by
name, so parallel runs and other engineers' processes are left alone), and polling with a deadline."""
from __future__ import annotations

import os
import pathlib
import random
import socket
import subprocess
import time

#: Listening ports for tests come from below the kernel's ephemeral range (32768-60999 by default): a port the kernel
#: handed out with bind(0) is soon handed out again as the local port of some client connection, and a server
#: started on it a moment later then fails with "Address already in use".
_ALL_PORTS = range(20000, 32000)
#: Ports free_port gave in this process. A port it returns is not held, so without this two calls made before
#: either port is bound (a stack's listen, south and REST ports) could return the same one: the second server
#: failed with "Address already in use" (twice in four runs of the suites on 2026-11-28).
_given: set[int] = set()


def _worker_ports() -> range:
    """This process's share of the ports: each pytest-xdist worker (`make test` runs two) draws from a slice of
    its own, so two workers never pick the same port before either binds it (one OneSwitch failed to start with
    "Address already in use" in a parallel run of 2026-11-30). Outside xdist, all of them."""
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    index = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    size = len(_ALL_PORTS) // count
    return _ALL_PORTS[index * size:(index + 1) * size]


_PORTS = _worker_ports()


def free_port() -> int:
    """A port on 127.0.0.1 that nothing is bound to now, outside the ephemeral range, never given before by this
    process."""
    for _ in range(200):
        port = random.choice(_PORTS)
        if port in _given:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
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
