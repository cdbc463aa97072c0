"""The paper's Fig. 8 on the DPDK platform (issue 21 (d)): the host switch's CPU with 64K filtering rules all on
the host ("host"), half on each side ("half"), or all on the sNIC ("snic").

The emulated platform on its dpdk datapath, one sNIC. As in the paper, traffic enters at the sNIC's Ethernet
port: pktgen sends UDP at a fixed rate from the outside end of the wire port, over 65,535 flows (source ports
1-65535), to the VM on the host, across the PCIe link. The filter is one rule per source port letting that flow
through; anything else is dropped. "host": the sNIC sends everything across with one rule, the host filters;
"half": the sNIC filters source ports 1-32767 and sends 32768-65535 across unfiltered, the host lets the first
half through with one masked rule and filters the second; "snic": the sNIC filters, the host forwards with one
rule. Each side's CPU is its cgroup's CPU time over a window (the switch and everything in its cgroup), in
cores; the figures are ratios to the "host" scenario in the same run, scenarios interleaved, medians of REPEAT.
The packets the VM received are counted too, so that a scenario that dropped traffic cannot look cheap.

    BENCH=offload make bench     # writes bench/results/offload.json, offload_fig8.png
"""
from __future__ import annotations

import json
import pathlib
import statistics
import subprocess
import tempfile

import uno_platform
from bench import dpdk_platform
from uno_nfs import nf_binary
from uno_platform import dpdk, system
from uno_platform.static_path import ofctl

PREFIX = "boff-"
RULES = 65535                        # source ports 1-65535 (pktgen does not send from port 0)
PPS = 50000
SIZE = 64
WARMUP, WINDOW = 3.0, 5.0
REPEAT = 3
SCENARIOS = ("host", "half", "snic")
HALF_MASK = "0x8000/0x8000"          # source ports 32768-65535


def _filter(port_range: range, out: int) -> list[str]:
    return [f"priority=100,udp,tp_src={p},actions=output:{out}" for p in port_range]


def _flows(scenario: str, host_in: int, vm: int, snic_in: int, link: int) -> dict[str, list[str]]:
    """Each switch's flows for `scenario` (see the module's text)."""
    everything = range(1, RULES + 1)
    first, second = range(1, 0x8000), range(0x8000, RULES + 1)
    if scenario == "host":
        return {"snic0": [f"in_port={snic_in},actions=output:{link}"],
                "host": _filter(everything, vm)}
    if scenario == "half":
        return {"snic0": _filter(first, link) + [f"priority=50,udp,tp_src={HALF_MASK},actions=output:{link}"],
                "host": [f"priority=50,udp,tp_src=0x0/0x8000,actions=output:{vm}"] + _filter(second, vm)}
    return {"snic0": _filter(everything, link), "host": [f"in_port={host_in},actions=output:{vm}"]}


def _install(platform, scenario: str, tmp: pathlib.Path) -> None:
    desc = platform.description
    link = desc["pcie_links"][0]
    ports = {
        "host_in": platform.port("host", link["host_port"])["ofport"],
        "vm": platform.port("host", desc["vms"][0]["port"])["ofport"],
        "snic_in": platform.port("snic0", desc["ext"]["interfaces"][0]["port"])["ofport"],
        "link": platform.port("snic0", link["snic_port"])["ofport"],
    }
    for switch, flows in _flows(scenario, **ports).items():
        path = tmp / f"{switch}.flows"
        path.write_text("\n".join(flows) + "\n")
        ofctl(platform, switch, "del-flows")
        # One bundle: flow_mods one at a time wait for the sleeping poll-mode threads, 65,536 took 193 s
        system.run(["ovs-ofctl", "-O", "OpenFlow13", "--bundle", "add-flows", platform.switch(switch)["openflow"],
                    str(path)], timeout=300)


def _vm_rx(platform) -> int:
    vm = platform.description["vms"][0]
    return int(system.run(["cat", "/sys/class/net/eth0/statistics/rx_packets"], netns=vm["netns"]))


def _measure(platform, scenario: str, tmp: pathlib.Path) -> dict:
    _install(platform, scenario, tmp)
    ext = platform.description["ext"]
    vm_ip = platform.description["vms"][0]["ip"].split("/")[0]
    gen = subprocess.Popen(["ip", "netns", "exec", ext["netns"], nf_binary("pktgen"), "--iface",
                            ext["interfaces"][0]["ifname"], "--size", str(SIZE), "--flows", str(RULES),
                            "--sport", "1", "--dst", vm_ip, "--rate", str(PPS),
                            "--duration", str(WARMUP + WINDOW + 1)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        measured = dpdk_platform.window(platform, lambda: _vm_rx(platform), WARMUP, WINDOW)
        out, err = gen.communicate(timeout=WARMUP + WINDOW + 30)
    finally:
        if gen.poll() is None:
            gen.kill()
            gen.wait()
    if gen.returncode:
        raise RuntimeError(f"pktgen failed: {err.strip()}")
    return {**measured, "offered_pps": json.loads(out)["pps"]}


def _plot(results: dict, path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.4))
    xs = range(len(SCENARIOS))
    ax.bar([x - 0.2 for x in xs], [results[s]["host_cores"] for s in SCENARIOS], 0.4, label="host switch")
    ax.bar([x + 0.2 for x in xs], [results[s]["snic_cores"] for s in SCENARIOS], 0.4, label="sNIC switch")
    ax.set_xticks(list(xs), [s.upper() if s != "snic" else "sNIC" for s in SCENARIOS])
    ax.set_ylabel(f"CPU (cores) at {PPS:,} packets/s")
    ax.set_title(f"{RULES:,} filtering rules")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(results_dir: pathlib.Path) -> dict:
    platform = dpdk_platform.up(PREFIX, "bench_offload", vms=1)
    runs: dict[str, list[dict]] = {s: [] for s in SCENARIOS}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for _ in range(REPEAT):
                for scenario in SCENARIOS:
                    runs[scenario].append(_measure(platform, scenario, pathlib.Path(tmp)))
    finally:
        uno_platform.down(PREFIX)
    results = {}
    for scenario, samples in runs.items():
        results[scenario] = {key: statistics.median(r[key] for r in samples) for key in samples[0]}
        results[scenario]["samples"] = samples
    for scenario in SCENARIOS:
        for side in ("host", "snic"):
            base = results["host"][f"{side}_cores"]
            results[scenario][f"{side}_ratio_to_host"] = round(results[scenario][f"{side}_cores"] / base, 3) \
                if base else None
    _plot(results, results_dir / "offload_fig8.png")
    report = {
        "benchmark": "offload",
        "what": "Fig. 8: the host and sNIC switches' CPU with 64K filtering rules on the host, half on each "
                "side, or on the sNIC; DPDK datapath, traffic from the sNIC's wire port to the VM",
        "setup": {"rules": RULES, "pps": PPS, "frame_bytes": SIZE, "warmup_s": WARMUP, "window_s": WINDOW,
                  "repeat": REPEAT, "pmd_maxsleep_us": dpdk.PMD_MAXSLEEP_US},
        "results": results,
        "plot": "offload_fig8.png",
    }
    (results_dir / "offload.json").write_text(json.dumps(report, indent=2) + "\n")
    return {s: {k: results[s][k] for k in ("host_cores", "snic_cores", "host_ratio_to_host", "delivered_pps")}
            for s in SCENARIOS}


if __name__ == "__main__":
    here = pathlib.Path(__file__).resolve().parent
    print(json.dumps(main(here / "results"), indent=2))
