"""The DPDK platform the data-plane benchmarks run on (issue 21): one sNIC with two cores of quota and one wire
port, any leftover of the prefix removed first."""
from __future__ import annotations

import time
from collections.abc import Callable

import uno_platform
from uno_platform import dpdk
from uno_platform.base import Platform
from uno_platform.spec import TestbedSpec


def up(prefix: str, benchmark: str, vms: int) -> Platform:
    reason = dpdk.available()
    if reason:
        raise RuntimeError(f"{benchmark} needs the dpdk datapath: {reason}")
    uno_platform.down(prefix)
    return uno_platform.up(TestbedSpec(prefix=prefix, datapath="dpdk", snic_cores=2.0, vms=vms, wire_ports=1))


def window(platform: Platform, delivered: Callable[[], int], warmup: float, seconds: float) -> dict:
    """After `warmup` seconds, each side's CPU (its cgroup) in cores and the rate of the `delivered` counter, over
    `seconds`."""
    time.sleep(warmup)
    c0, n0, t0 = platform.cpu_seconds(), delivered(), time.monotonic()
    time.sleep(seconds)
    c1, n1, t1 = platform.cpu_seconds(), delivered(), time.monotonic()
    span = t1 - t0
    return {"delivered_pps": round((n1 - n0) / span), "host_cores": round((c1["host"] - c0["host"]) / span, 4),
            "snic_cores": round((c1["snic0"] - c0["snic0"]) / span, 4)}
