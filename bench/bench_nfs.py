"""Packet rate of each NF on one core, against the no-op forwarder built on
the same library, measured in the same run (issue 7), on both packet I/O
providers (issue 21), and secgw's encryption against `openssl speed` on the
same core.

AF_PACKET: a private netns with a veth pair gen0 <-> nf0.  pktgen (nfs/tools)
sends UDP frames over 1,000 flows on gen0 as fast as it can, pinned to one
CPU; the NF runs on nf0 pinned to another CPU and sends every packet back
out of nf0, where gen0 drops it early (the frames are addressed to another
host).  DPDK: pktgen's vhost PMD (standing in for the switch) serves a
vhost-user socket, the NF's virtio-user port connects to it, and pktgen
sends and reads back what returns; hugepages are reserved for the run and
given back.  The generator starts first (a virtio-user port waits for its
vhost-user peer before the NF goes on), and runs STARTUP seconds longer.

The rate is per core: the packets the NF transmitted in a window in the
middle of the run, divided by the CPU time the NF spent in that window
(/proc/PID/schedstat: user, system, and the softirq work it triggers, since
this kernel does not account IRQ time separately).  That is its capacity on
one core, whether or not the generator saturates it, and it holds up when
other work shares the machine; the wall-clock rate and CPU use are recorded
too.  Each point is the median of REPEAT runs, interleaved across NFs.  Frame sizes count
the 4-byte FCS, as Ethernet does; Gbps are
L2 (frame bits, no preamble or gap).

A polling NF (DPDK) spends its whole core whatever the rate, so its CPU time
says nothing of its load: its time per core is the time it spent in rounds
that had packets to handle (its stats' busy_ns, as OVS counts a poll-mode
thread's processing cycles), or its CPU time if less.  Here the generator,
which copies each packet three times (its own transmit and the vhost-user
enqueue and dequeue) to the NF's one, is the slower side.

    BENCH=nfs make bench         # writes bench/results/nfs.json, nfs_dpdk.png
"""
from __future__ import annotations

import json
import os
import pathlib
import platform
import re
import subprocess
import tempfile
import time

from uno_nfs import NfControl, nf_binary, wait_ready
from uno_platform import hugepages

NFS = ["noop", "l2fw", "l7fw", "secgw", "monitor", "nat"]
SIZES = [64, 1280]
FLOWS = 1000
SRC, DST = "10.0.0.1", "198.51.100.1"
WARMUP, WINDOW = 1.5, 3.0            # seconds
STARTUP = 3.0                        # the NF's longest start, in seconds
REPEAT = 3                           # runs per point, interleaved; median
NF_CPU, GEN_CPU = 1, 0
BACKENDS = ["afpacket", "dpdk"]
HUGEPAGES = 128                      # the NF and pktgen take about 25 and 15
OPENSSL_SECONDS = 3

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


def _wait_for(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError("pktgen did not open its vhost-user socket")
        time.sleep(0.01)


def _cpu_ns(pid: int) -> int:
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0])


def _ports(tmp: pathlib.Path, nf: str, backend: str) -> tuple[list, list]:
    """The NF's and the generator's port options for `backend`."""
    if backend == "afpacket":
        return ["--iface", "nf0"], ["--iface", "gen0"]
    sock = tmp / f"{nf}.vhost"
    sock.unlink(missing_ok=True)
    return (["--backend", "dpdk", "--iface", f"net_virtio_user0,path={sock}"],
            ["--backend", "dpdk", "--iface", f"net_vhost0,iface={sock}"])


def _measure(bed: _Testbed, tmp: pathlib.Path, nf: str, size: int,
             backend: str) -> dict:
    control = tmp / f"{nf}.sock"
    nf_port, gen_port = _ports(tmp, nf, backend)
    cmd = [nf_binary(nf), *nf_port, "--control", control,
           "--cpu", NF_CPU, "--log-level", "warn"]
    if nf in CONFIGS:
        conf = tmp / f"{nf}.conf"
        conf.write_text(CONFIGS[nf])
        cmd += ["--config", conf]
    duration = STARTUP + WARMUP + WINDOW + 1.0
    gen = bed.popen(nf_binary("pktgen"), *gen_port, "--size", size,
                    "--flows", FLOWS, "--src", SRC, "--dst", DST,
                    "--duration", duration, "--cpu", GEN_CPU,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    nf_proc = None
    try:
        if backend == "dpdk":   # the generator's vhost-user socket is there
            _wait_for(lambda: (tmp / f"{nf}.vhost").exists(), STARTUP)
        nf_proc = bed.popen(*cmd, stderr=subprocess.PIPE)
        ctl: NfControl = wait_ready(str(control), timeout=STARTUP)
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
        _stop(gen)
        if nf_proc is not None:
            _stop(nf_proc)

    packets = s1["tx"] - s0["tx"]
    cpu = (c1 - c0) / 1e9
    if backend == "dpdk":
        cpu = min(cpu, (s1["busy_ns"] - s0["busy_ns"]) / 1e9)
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


def _openssl_gbps(size: int) -> float:
    """`openssl speed -evp aes-128-gcm` on the NF's core: Gbit/s of
    `size`-byte buffers."""
    out = subprocess.run(
        ["taskset", "-c", str(NF_CPU), "openssl", "speed", "-elapsed",
         "-seconds", str(OPENSSL_SECONDS), "-bytes", str(size), "-evp",
         "aes-128-gcm"], check=True, capture_output=True, text=True).stdout
    m = re.search(r"^AES-128-GCM\s+([\d.]+)k\s*$", out, re.M)
    if not m:
        raise RuntimeError(f"cannot read openssl speed's output: {out!r}")
    return float(m.group(1)) * 1000 * 8 / 1e9


def _plot(results: dict, path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(SIZES), figsize=(10, 3.6))
    width = 0.38
    for ax, size in zip(axes, map(str, SIZES), strict=True):
        xs = range(len(NFS))
        for k, backend in enumerate(BACKENDS):
            ax.bar([x + (k - 0.5) * width for x in xs],
                   [results[backend][nf][size]["mpps"] for nf in NFS],
                   width, label=backend)
        ax.set_xticks(list(xs), NFS)
        ax.set_title(f"{size}-byte frames")
        ax.set_ylabel("Mpps per core")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(results_dir: pathlib.Path) -> dict:
    if os.geteuid() != 0:
        raise RuntimeError("bench_nfs needs root (network namespaces)")
    cpus = os.cpu_count() or 1
    runs: dict = {(b, nf, size): [] for b in BACKENDS for nf in NFS
                  for size in SIZES}
    openssl = []
    with tempfile.TemporaryDirectory() as tmp, _Testbed() as bed, \
            hugepages.reserved(HUGEPAGES):
        for _ in range(REPEAT):
            openssl.append(_openssl_gbps(SIZES[-1]))
            for size in SIZES:
                for nf in NFS:
                    for b in BACKENDS:
                        runs[b, nf, size].append(
                            _measure(bed, pathlib.Path(tmp), nf, size, b))
    results = {b: {nf: {str(size): _median_run(runs[b, nf, size])
                        for size in SIZES} for nf in NFS} for b in BACKENDS}
    for b in BACKENDS:
        for nf in NFS:
            for size in map(str, SIZES):
                base = results[b]["noop"][size]["mpps"]
                r = results[b][nf][size]
                r["ratio_to_noop"] = round(r["mpps"] / base, 3) if base else None
                afp = results["afpacket"][nf][size]["mpps"]
                r["ratio_to_afpacket"] = round(r["mpps"] / afp, 2) if afp else None
    openssl_gbps = sorted(openssl)[len(openssl) // 2]
    secgw = {b: results[b]["secgw"][str(SIZES[-1])]["gbps"] for b in BACKENDS}
    _plot(results, results_dir / "nfs_dpdk.png")

    report = {
        "benchmark": "nfs",
        "what": "packets per second of each NF per core (packets over the"
                " NF's CPU time), single-port mode, AF_PACKET on a veth"
                " pair and DPDK on a vhost-user socket, vs the no-op"
                " forwarder and vs AF_PACKET; secgw vs openssl speed",
        "setup": {
            "flows": FLOWS, "sizes_with_fcs": SIZES, "window_s": WINDOW,
            "repeat": REPEAT,
            "nf_cpu": NF_CPU if cpus > 1 else None,
            "generator_cpu": GEN_CPU if cpus > 1 else None,
            "cpus": cpus, "machine": platform.machine(),
            "kernel": platform.release(),
            "configs": CONFIGS, "backends": BACKENDS,
            "openssl_seconds": OPENSSL_SECONDS,
        },
        "results": results,
        "secgw_vs_openssl": {
            "frame_bytes": SIZES[-1], "openssl_gbps": round(openssl_gbps, 2),
            "openssl_samples_gbps": [round(g, 2) for g in openssl],
            **{f"{b}_gbps": secgw[b] for b in BACKENDS},
            **{f"{b}_ratio": round(secgw[b] / openssl_gbps, 3)
               for b in BACKENDS},
        },
        "plot": "nfs_dpdk.png",
    }
    out = results_dir / "nfs.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    return {"l2fw_64_dpdk_over_afpacket":
            results["dpdk"]["l2fw"]["64"]["ratio_to_afpacket"],
            "secgw_vs_openssl": report["secgw_vs_openssl"],
            **{b: {nf: {size: results[b][nf][size]["mpps"]
                        for size in map(str, SIZES)} for nf in NFS}
               for b in BACKENDS}}


if __name__ == "__main__":
    here = pathlib.Path(__file__).resolve().parent
    print(json.dumps(main(here / "results"), indent=2))
