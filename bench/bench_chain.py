"""A chain of NFs on the DPDK platform, placed on the host, on the sNIC or split (issue 21 (c), (e)).

(c) VM -> secgw -> l7fw -> monitor -> wire, at the highest rate the generator reaches, with the chain on the
    host, on the sNIC, or split (secgw and monitor on the host, l7fw on the sNIC: three link crossings);
    delivered packets per second, and PCIe crossings per packet.
(e) The paper's Fig. 10, SD-WAN: secgw -> l7fw at fixed rates, on the host or on the sNIC; the host's and the
    sNIC's CPU in cores, and the host cores offloading saves. (The paper decrypts traffic arriving from the
    wire; here the VM's traffic is encrypted on its way out, the same work in the other direction.)

The emulated platform on its dpdk datapath, one sNIC. The "VM" is pktgen on a vhost-user port of the host
switch (DPDK, outside the platform's cgroups, like a tenant's VM), sending 1,280-byte UDP frames over 1,000
flows; the wire's outside end counts what arrives. The NFs run with the dpdk packet I/O on vhost-user ports,
in their side's cgroup; the chain is steered with one rule per hop (`static_path.install_chain`). CPU is each
side's cgroup CPU time over a window (its switch and NFs), in cores. Medians of REPEAT, placements interleaved.

    BENCH=chain make bench       # writes bench/results/chain.json, chain_fig10.png
"""
from __future__ import annotations

import json
import pathlib
import statistics
import subprocess
import tempfile

import uno_platform
from bench import dpdk_platform
from uno_nfs import nf_binary, wait_ready
from uno_platform import system
from uno_platform.static_path import install_chain, ofctl

PREFIX = "bchn-"
SIZE, FLOWS = 1280, 1000
SRC = "10.0.0.1"
WARMUP, WINDOW = 2.0, 4.0
REPEAT = 3
CONFIGS = {
    "secgw": "sa out spi 0x1000 key 0x000102030405060708090a0b0c0d0e0fa0a1a2a3 local 192.0.2.1 "
             f"remote 192.0.2.2 src {SRC}/32\n",
    "l7fw": "block proto HTTP\nblock proto TLS\n",
}
CHAIN = ("secgw", "l7fw", "monitor")
PLACEMENTS = {"host": ("host", "host", "host"), "snic": ("snic0", "snic0", "snic0"),
              "split": ("host", "snic0", "host")}
SDWAN = ("secgw", "l7fw")
SDWAN_RATES = (20000, 50000, 100000)


class _Chain:
    """NFs `nfs` started on `sides` (their ports, processes and the steering rules), stopped on exit."""

    def __init__(self, platform, tmp: pathlib.Path, nfs: tuple[str, ...], sides: tuple[str, ...]):
        self.platform, self.tmp, self.nfs, self.sides = platform, tmp, nfs, sides
        self.procs: list[subprocess.Popen] = []
        self.ports: list[tuple[str, str]] = []

    def __enter__(self) -> _Chain:
        for k, (nf, side) in enumerate(zip(self.nfs, self.sides, strict=True)):
            port = self.platform.add_port(side, f"{PREFIX}n{k}")
            self.ports.append((side, port["name"]))
            control = self.tmp / f"{nf}{k}.ctl"
            argv = [nf_binary(nf), "--backend", port["backend"], "--iface", port["nf_ifname"],
                    "--control", str(control), "--log-level", "warn"]
            if nf in CONFIGS:
                conf = self.tmp / f"{nf}.conf"
                conf.write_text(CONFIGS[nf])
                argv += ["--config", str(conf)]
            self.procs.append(self.platform.spawn(side, argv, stdin=subprocess.DEVNULL))
            wait_ready(str(control), timeout=15).close()
        return self

    def __exit__(self, *exc) -> None:
        for proc in self.procs:
            proc.terminate()
            proc.wait(timeout=10)
        for side, port in self.ports:
            self.platform.remove_port(side, port)


def _generator(socket: str, rate: int | None) -> subprocess.Popen:
    """pktgen on the VM's port; it sends once the switch has connected to its socket (within a second)."""
    argv = [nf_binary("pktgen"), "--backend", "dpdk", "--iface", socket, "--size", str(SIZE),
            "--flows", str(FLOWS), "--src", SRC, "--duration", str(WARMUP + WINDOW + 1)]
    if rate:
        argv += ["--rate", str(rate)]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wire_rx(platform) -> int:
    ext = platform.description["ext"]
    ifname = ext["interfaces"][0]["ifname"]
    return int(system.run(["cat", f"/sys/class/net/{ifname}/statistics/rx_packets"], netns=ext["netns"]))


def _run(platform, tmp: pathlib.Path, nfs: tuple[str, ...], sides: tuple[str, ...], rate: int | None) -> dict:
    wire = platform.description["ext"]["interfaces"][0]
    vm = platform.add_port("host", f"{PREFIX}g0")
    gen = None
    try:
        with _Chain(platform, tmp, nfs, sides) as chain:
            crossings = install_chain(platform, [("host", vm["name"]), *chain.ports,
                                                 (wire["switch"], wire["port"])])
            gen = _generator(vm["nf_ifname"], rate)
            measured = dpdk_platform.window(platform, lambda: _wire_rx(platform), WARMUP, WINDOW)
            out, err = gen.communicate(timeout=WARMUP + WINDOW + 60)
    finally:
        if gen is not None and gen.poll() is None:
            gen.kill()
            gen.wait()
        for sw in ("host", "snic0"):
            ofctl(platform, sw, "del-flows")
        platform.remove_port("host", vm["name"])
    if gen.returncode:
        raise RuntimeError(f"pktgen failed: {err.strip()}")
    return {**measured, "offered_pps": json.loads(out)["pps"], "crossings": crossings}


def _median(samples: list[dict]) -> dict:
    out = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
    out["samples"] = samples
    return out


def _plot(sdwan: dict, path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    gbps = [rate * SIZE * 8 / 1e9 for rate in SDWAN_RATES]
    for placement, style in (("host", "o-"), ("snic", "s--")):
        for side, color in (("host", "tab:blue"), ("snic", "tab:orange")):
            ax.plot(gbps, [sdwan[placement][str(r)][f"{side}_cores"] for r in SDWAN_RATES], style, color=color,
                    label=f"chain on {placement}: {side} CPU")
    ax.set_xlabel("offered Gbit/s (1,280-byte frames)")
    ax.set_ylabel("cores")
    ax.set_title("SD-WAN (secgw, l7fw): CPU per side")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(results_dir: pathlib.Path) -> dict:
    platform = dpdk_platform.up(PREFIX, "bench_chain", vms=0)
    chain_runs = {p: [] for p in PLACEMENTS}
    sdwan_runs = {p: {r: [] for r in SDWAN_RATES} for p in ("host", "snic")}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(REPEAT):
                for placement, sides in PLACEMENTS.items():
                    chain_runs[placement].append(_run(platform, pathlib.Path(tmp), CHAIN, sides, None))
                for rate in SDWAN_RATES:
                    for placement in ("host", "snic"):
                        side = "host" if placement == "host" else "snic0"
                        sdwan_runs[placement][rate].append(
                            _run(platform, pathlib.Path(tmp), SDWAN, (side,) * len(SDWAN), rate))
    finally:
        uno_platform.down(PREFIX)
    chain = {p: _median(runs) for p, runs in chain_runs.items()}
    for p in PLACEMENTS:
        chain[p]["ratio_to_host"] = round(chain[p]["delivered_pps"] / chain["host"]["delivered_pps"], 3)
    sdwan = {p: {str(r): _median(runs) for r, runs in by_rate.items()} for p, by_rate in sdwan_runs.items()}
    saved = {str(r): round(sdwan["host"][str(r)]["host_cores"] - sdwan["snic"][str(r)]["host_cores"], 3)
             for r in SDWAN_RATES}
    _plot(sdwan, results_dir / "chain_fig10.png")
    report = {
        "benchmark": "chain",
        "what": "(c) VM -> secgw -> l7fw -> monitor -> wire at the generator's highest rate, on the host, the "
                "sNIC or split; (e) Fig. 10: SD-WAN secgw -> l7fw at fixed rates, CPU per side; DPDK datapath",
        "setup": {"frame_bytes": SIZE, "flows": FLOWS, "warmup_s": WARMUP, "window_s": WINDOW, "repeat": REPEAT,
                  "placements": PLACEMENTS, "sdwan_rates_pps": SDWAN_RATES},
        "chain": chain, "sdwan": sdwan, "host_cores_saved": saved, "plot": "chain_fig10.png",
    }
    (results_dir / "chain.json").write_text(json.dumps(report, indent=2) + "\n")
    return {"chain": {p: {k: chain[p][k] for k in ("delivered_pps", "crossings", "ratio_to_host", "host_cores",
                                                   "snic_cores")} for p in PLACEMENTS},
            "host_cores_saved": saved}


if __name__ == "__main__":
    here = pathlib.Path(__file__).resolve().parent
    print(json.dumps(main(here / "results"), indent=2))
