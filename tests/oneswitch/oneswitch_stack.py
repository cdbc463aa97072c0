"""Test helpers for OneSwitch: the shared stack helpers (uno_harness.oneswitch) plus the os-ken launcher.

Every process started here is stopped by its own handle (`Proc.stop`), never by name.
"""
from __future__ import annotations

import pathlib
import subprocess
import sys

from uno_oneswitch.client import rest
from uno_oneswitch.ofclient import OfClient

import uno_harness.agent
from uno_harness.oneswitch import JAR, build_jar, ofctl, revalidate, start_oneswitch, switch_target, wait_healthy
from uno_harness.processes import Proc, free_port, wait_for

REPO = pathlib.Path(__file__).resolve().parents[2]
UDP_SEQ = pathlib.Path(__file__).with_name("udp_seq.py")

__all__ = ["JAR", "REPO", "OfClient", "Proc", "build_jar", "free_port", "ofctl", "rest", "revalidate",
           "start_oneswitch", "start_osken", "switch_target", "udp_receiver", "wait_for", "wait_healthy"]


def start_osken(port: int, log: pathlib.Path) -> Proc:
    """os-ken with the L2 learning app on 127.0.0.1:`port`."""
    return uno_harness.agent.start_osken(port, "l2_learning.py", log)


def udp_receiver(netns: str, ifname: str, out: pathlib.Path, stop: pathlib.Path) -> subprocess.Popen:
    """udp_seq.py's receiver on `ifname` in `netns`, ready; it writes `out` once `stop` exists."""
    p = subprocess.Popen(["ip", "netns", "exec", netns, sys.executable, str(UDP_SEQ), "receive", ifname, str(out),
                          str(stop)], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    return p
