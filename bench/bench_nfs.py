"""Packet rate of each NF on one core, against the no-op forwarder built on
the same library, measured in the same run (issue 7).

Topology: a private netns with a veth pair gen0 <-> nf0.  pktgen (nfs/tools)
sends UDP frames over 1,000 flows on gen0 as fast as it can, pinned to one
CPU; the NF runs on nf0 pinned to another CPU and sends every packet back
out of nf0, where gen0 drops it early (the frames are addressed to another
host).

The rate is per core: the packets the NF transmitted in a window in the
middle of the run, divided by the CPU time the NF spent in that window
(/proc/PID/schedstat: user, system, and the softirq work it triggers, since
this kernel does not account IRQ time separately).  That is its capacity on
one core, whether or not the generator saturates it, and it holds up when
other work shares the machine; the wall-clock rate and CPU use are recorded
too.  Each point is the median of REPEAT runs, interleaved across NFs.  Frame sizes count
the 4-byte FCS, as Ethernet does; Gbps are
L2 (frame bits, no preamble or gap).

    BENCH=nfs make bench         # writes bench/results/nfs.json
"""
from __future__ import annotations

import json
import os
import pathlib
import platform
import subprocess
import tempfile
import time

from uno_nfs import NfControl, nf_binary, wait_ready

NFS = ["noop", "l2fw", "l7fw", "secgw", "monitor", "nat"]
SIZES = [64, 1280]
FLOWS = 1000
SRC, DST = "10.0.0.1", "198.51.100.1"
WARMUP, WINDOW = 1.5, 3.0            # seconds
REPEAT = 3                           # runs per point, interleaved; median
NF_CPU, GEN_CPU = 1, 0

CONFIGS = {
    # Ten rules, the traffic allowed by the last.
    "l2fw": "".join(f"deny proto tcp dport {p}\n" for p in range(1, 10))
            + f"allow proto udp src {SRC}/32\ndefault deny\n",
    # Detection runs on every flow until nDPI gives up on it.
    "l7fw": "block proto HTTP\nblock proto TLS\n",
    # Encryption of all of the traffic (1,280 bytes grow to 1,336).
    "secgw": "sa out spi 0x1000 key 0x000102030405060708090a0b0c0d0e0f"
             f"a0a1a2a3 local 192.0.2.1 remote 192.0.2.2 src {SRC}/32\n",
    "nat": "external 203.0.113.1\ninternal 10.0.0.0/8\n",
}


def _run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


class _Testbed:
    def __init__(self):
        self.ns = f"unonfbench{os.getpid()}"

    def __enter__(self) -> _Testbed:
        _run("ip", "netns", "add", self.ns)
        ex = ("ip", "netns", "exec", self.ns)
        _run(*ex, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        _run(*ex, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        _run("ip", "-n", self.ns, "link", "add", "gen0", "type", "veth",
             "peer", "name", "nf0")
        for dev in ("gen0", "nf0"):
            _run("ip", "-n", self.ns, "link", "set", dev, "up")
            _run(*ex, "ethtool", "-K", dev, "tx", "off")
        return self

    def __exit__(self, *exc) -> None:
        subprocess.run(["ip", "netns", "del", self.ns], check=False)

    def popen(self, *cmd, **kw) -> subprocess.Popen:
        return subprocess.Popen(["ip", "netns", "exec", self.ns, *map(str, cmd)],
                                **kw)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _cpu_ns(pid: int) -> int:
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0])


def _measure(bed: _Testbed, tmp: pathlib.Path, nf: str, size: int) -> dict:
    control = tmp / f"{nf}.sock"
    cmd = [nf_binary(nf), "--iface", "nf0", "--control", control,
           "--cpu", NF_CPU, "--log-level", "warn"]
    if nf in CONFIGS:
        conf = tmp / f"{nf}.conf"
        conf.write_text(CONFIGS[nf])
        cmd += ["--config", conf]
    nf_proc = bed.popen(*cmd, stderr=subprocess.PIPE)
    gen = None
    try:
        ctl: NfControl = wait_ready(str(control), timeout=15)
        duration = WARMUP + WINDOW + 1.0
        gen = bed.popen(nf_binary("pktgen"), "--iface", "gen0", "--size", size,
                        "--flows", FLOWS, "--src", SRC, "--dst", DST,
                        "--duration", duration, "--cpu", GEN_CPU,
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(WARMUP)
        s0, t0, c0 = ctl.stats(), time.monotonic(), _cpu_ns(nf_proc.pid)
        time.sleep(WINDOW)
        s1, t1, c1 = ctl.stats(), time.monotonic(), _cpu_ns(nf_proc.pid)
        out, err = gen.communicate(timeout=duration + 10)
        if gen.returncode:
            raise RuntimeError(f"pktgen failed: {err.decode()}")
        sent = json.loads(out)
        ctl.close()
    finally:
        if gen is not None:
            _stop(gen)
        _stop(nf_proc)

    packets = s1["tx"] - s0["tx"]
    cpu = (c1 - c0) / 1e9
    pps = packets / cpu if cpu > 0 else 0.0
    return {
        "mpps": round(pps / 1e6, 4),
        "gbps": round(pps * size * 8 / 1e9, 3),
        "observed_mpps": round(packets / (t1 - t0) / 1e6, 4),
        "cpu_util": round(cpu / (t1 - t0), 3),
        "offered_mpps": round(sent["pps"] / 1e6, 4),
        "rx_kernel_drops": s1["rx_kernel_drops"] - s0["rx_kernel_drops"],
        "nf_drops": s1["nf_drop"] - s0["nf_drop"],
        "flows": s1["flows"],
        "counters": s1["counters"],
    }


def _median_run(runs: list[dict]) -> dict:
    runs = sorted(runs, key=lambda r: r["mpps"])
    best = dict(runs[len(runs) // 2])
    best["samples_mpps"] = [r["mpps"] for r in runs]
    return best


def main(results_dir: pathlib.Path) -> dict:
    if os.geteuid() != 0:
        raise RuntimeError("bench_nfs needs root (network namespaces)")
    cpus = os.cpu_count() or 1
    runs: dict = {(nf, size): [] for nf in NFS for size in SIZES}
    with tempfile.TemporaryDirectory() as tmp, _Testbed() as bed:
        for _ in range(REPEAT):
            for size in SIZES:
                for nf in NFS:
                    runs[nf, size].append(_measure(bed, pathlib.Path(tmp), nf,
                                                   size))
    results = {nf: {str(size): _median_run(runs[nf, size]) for size in SIZES}
               for nf in NFS}
    for nf in NFS:
        for size in map(str, SIZES):
            base = results["noop"][size]["mpps"]
            r = results[nf][size]
            r["ratio_to_noop"] = round(r["mpps"] / base, 3) if base else None

    report = {
        "benchmark": "nfs",
        "what": "packets per second of each NF per core (packets over the"
                " NF's CPU time), single-port mode, AF_PACKET on a veth"
                " pair, vs the no-op forwarder",
        "setup": {
            "flows": FLOWS, "sizes_with_fcs": SIZES, "window_s": WINDOW,
            "repeat": REPEAT,
            "nf_cpu": NF_CPU if cpus > 1 else None,
            "generator_cpu": GEN_CPU if cpus > 1 else None,
            "cpus": cpus, "machine": platform.machine(),
            "kernel": platform.release(),
            "configs": CONFIGS,
        },
        "results": results,
    }
    out = results_dir / "nfs.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    return {nf: {size: {k: results[nf][size][k]
                        for k in ("mpps", "gbps", "ratio_to_noop")}
                 for size in map(str, SIZES)} for nf in NFS}


if __name__ == "__main__":
    here = pathlib.Path(__file__).resolve().parent
    print(json.dumps(main(here / "results"), indent=2))
