"""`make demo`: bring the emulated platform up, push traffic across it, report, take it down.

For now the path VM -> host OVS -> PCIe link -> sNIC OVS -> wire is installed with
ovs-ofctl (uno_platform.static_path); OneSwitch, the agent and NF migration join
the demo as they land.
"""
from __future__ import annotations

import argparse
import logging
import sys
import time

import uno_platform
from uno_platform.errors import PlatformError
from uno_platform.spec import TestbedSpec
from uno_platform.static_path import flow_packets, install_tagged_path
from uno_platform.traffic import ping, tcp_echo, tcp_throughput_mbps

log = logging.getLogger("uno.demo")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m uno_agent.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default="demo-", help="testbed prefix (default demo-)")
    parser.add_argument("--pcie-gbps", type=float, default=0.5, help="PCIe bandwidth (default 0.5)")
    parser.add_argument("--snic-cores", type=float, default=1.0, help="sNIC cores (default 1)")
    parser.add_argument("--seconds", type=int, default=3, help="length of the throughput run (default 3)")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> list[str]:
    """The demo's steps; returns the report lines."""
    report = []
    started = time.monotonic()
    platform = uno_platform.up(TestbedSpec(prefix=args.prefix, pcie_gbps=args.pcie_gbps,
                                           snic_cores=args.snic_cores, vms=2))
    try:
        desc = platform.description
        report.append(f"platform {desc['prefix']} up: host + {len(desc['pcie_links'])} sNIC, "
                      f"PCIe {args.pcie_gbps:g} Gbit/s, sNIC {args.snic_cores:g} cores")
        vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
        ext_ip = ext["ip"].split("/")[0]
        flows = install_tagged_path(platform, vm["port"], ext["port"])
        report.append(f"installed {sum(map(len, flows.values()))} flow-id-tagged rules "
                      f"{vm['id']} <-> {ext['ifname']} with ovs-ofctl")
        report.append(f"ping {vm['id']} -> ext {ext_ip}: {'ok' if ping(vm['netns'], ext_ip) else 'FAILED'}")
        sent, received = tcp_echo(vm["netns"], desc["ext"]["netns"], ext_ip, nbytes=1 << 20)
        report.append(f"TCP echo of 1 MiB: {'identical' if sent == received else 'CORRUPTED'}")
        cpu_before = platform.cpu_seconds()
        mbps = tcp_throughput_mbps(vm["netns"], desc["ext"]["netns"], ext_ip, seconds=args.seconds)
        cpu = {k: v - cpu_before[k] for k, v in platform.cpu_seconds().items()}
        share = mbps / (args.pcie_gbps * 1000)
        report.append(f"TCP throughput {mbps:.0f} Mbit/s ({share:.0%} of the PCIe link)")
        report.append("CPU during the run: " + ", ".join(f"{k} {v / args.seconds:.2f} cores"
                                                         for k, v in cpu.items()))
        for switch_id in flows:
            packets = sum(flow_packets(platform, switch_id).values())
            report.append(f"{switch_id} switch counted {packets} packets on its rules")
    finally:
        problems = uno_platform.down(args.prefix)
        report.append("platform down" + (f" with problems: {problems}" if problems else ", nothing left"))
    report.append(f"demo took {time.monotonic() - started:.1f} s")
    return report


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    args = parse_args(argv)
    try:
        report = run(args)
    except PlatformError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 1
    for line in report:
        print(line)
    return 0 if all("FAILED" not in line and "CORRUPTED" not in line and "problems" not in line
                    for line in report) else 1


if __name__ == "__main__":
    sys.exit(main())
