"""Test helpers for OneSwitch: the shared stack helpers (uno_oneswitch.stack) plus the os-ken launcher.

Every process started here is stopped by its own handle (`Proc.stop`), never by name.
"""
from __future__ import annotations

import pathlib
import socket
import sys

from uno_oneswitch.client import rest
from uno_oneswitch.ofclient import OfClient
from uno_oneswitch.stack import (
    JAR,
    Proc,
    build_jar,
    free_port,
    ofctl,
    revalidate,
    start_oneswitch,
    switch_target,
    wait_for,
    wait_healthy,
)

REPO = pathlib.Path(__file__).resolve().parents[2]
OSKEN_LAUNCH = REPO / "tests" / "controllers" / "osken_launch.py"
L2_APP = REPO / "tests" / "controllers" / "l2_learning.py"

__all__ = ["JAR", "REPO", "OfClient", "Proc", "build_jar", "free_port", "ofctl", "rest", "revalidate",
           "start_oneswitch", "start_osken", "switch_target", "wait_for", "wait_healthy"]


def start_osken(port: int, log: pathlib.Path, app: pathlib.Path = L2_APP) -> Proc:
    proc = Proc("os-ken", [sys.executable, str(OSKEN_LAUNCH), "--ofp-listen-host", "127.0.0.1",
                           "--ofp-tcp-listen-port", str(port), str(app)], log)

    def listening():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            assert proc.alive(), f"os-ken exited:\n{proc.tail()}"
            return False
    wait_for(listening, 20, "os-ken to listen")
    return proc
