"""`make demo`: UNO end to end on the emulated platform, unattended.

The SD-WAN chain of the paper's §5.1: a remote site sends numbered UDP to a tenant VM through an
IPsec tunnel; on this server the tunnel ends in a secgw NF, then an l7fw and a monitor inspect the
traffic before it reaches the VM. The controller (os-ken) sees one switch and steers the chain
with virtual ports only; the agent places every NF with the solver, watches the traffic, and
migrates NFs between the sNIC and the host, with their state, as the load changes. The demo
shows where each NF runs and why, raises the load until re-placement moves NFs to the host,
lowers it again, checks that no migration lost, duplicated or reordered a packet, says where every
other lost packet went (a starved or shaped place, counted), and writes a report (text and a PNG
timeline) before tearing everything down. It fails on migration loss and on loss no counter explains.

Emulated traffic is megabits, not the paper's gigabits, so the demo's flavors
(deploy/demo/flavors.json) cost 20 times the default per Gbit/s, with the default ratios
between host and sNIC.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

from uno_oneswitch.client import http_json

import uno_platform
from uno_agent.attribution import Attribution, Sampler, flatten
from uno_agent.launcher import vm_netns
from uno_agent.migration import nf_loss_places
from uno_harness.agent import PROFILES, REPO, Stack, platform_args
from uno_harness.processes import Proc, wait_for
from uno_nfs import NfControl
from uno_platform import system
from uno_platform.errors import PlatformError
from uno_platform.spec import TestbedSpec
from uno_platform.traffic import NumberedUdp

log = logging.getLogger("uno.demo")

DEMO_FLAVORS = REPO / "deploy" / "demo" / "flavors.json"
SITE_IP, SITE_NET, TENANT_NET = "10.2.0.5/16", "10.2.0.0/16", "10.0.0.0/24"
GW_LOCAL, GW_REMOTE = "192.0.2.1", "192.0.2.2"          # tunnel ends: this server, the remote site
KEY_IN, KEY_OUT = "0x" + "11" * 20, "0x" + "22" * 20      # AES-128 key + 4-byte salt per direction
FRAME = 1000                                              # bytes per packet (UDP payload + headers)


@dataclasses.dataclass(frozen=True)
class Phase:
    name: str
    seconds: float
    mbps: float


def phases(scale: float) -> list[Phase]:
    """Low, rising, high, low again. The load rises in two steps, as it does in practice: the
    agent's model puts the sNIC over capacity at about 6 Mbit/s, well before the emulated sNIC
    (0.5 of a core) really runs out at the high load, so the monitor moves NFs in time."""
    return [Phase("low load", 15 * scale, 4), Phase("rising", 10 * scale, 10), Phase("high load", 20 * scale, 24),
            Phase("low again", 20 * scale, 4)]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m uno_harness.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", default="demo-", help="platform prefix (default demo-)")
    parser.add_argument("--report-dir", default=str(REPO / "demo-report"),
                        help="where the report goes (default demo-report/)")
    parser.add_argument("--short", action="store_true", help="shorter phases (CI)")
    parser.add_argument("--profile", choices=PROFILES, default="emulated",
                        help="platform profile: the sNIC in the host's namespaces, or a machine of its own reached "
                             "over its management link (default emulated)")
    return parser.parse_args(argv)


@dataclasses.dataclass(frozen=True)
class TunnelEnd:
    """One end of the IPsec tunnel: its address, and the SPI and key of what it sends and receives."""

    local: str
    remote: str
    spi_out: int
    key_out: str
    spi_in: int
    key_in: str

    def peer(self) -> TunnelEnd:
        return TunnelEnd(self.remote, self.local, self.spi_in, self.key_in, self.spi_out, self.key_out)


SERVER_END = TunnelEnd(GW_LOCAL, GW_REMOTE, 0x1000, KEY_OUT, 0x2000, KEY_IN)


def secgw_config(end: TunnelEnd, protected: str, far: str) -> str:
    """The secgw configuration of `end`, which protects `protected` and reaches `far` through the tunnel."""
    return (f"sa out spi {end.spi_out:#x} key {end.key_out} local {end.local} remote {end.remote} "
            f"src {protected} dst {far}\n"
            f"sa in spi {end.spi_in:#x} key {end.key_in} local {end.local} remote {end.remote} "
            f"src {far} dst {protected}\n"
            "bypass pass\n")


class RemoteSite:
    """The far end of the tunnel, inside the platform's ext namespace: a source behind its own secgw.

    site0 (10.2.0.5) -> veth -> gw0 [remote secgw, two-port] eth0 -> the server's wire port.
    """

    def __init__(self, platform, vm: dict, workdir: pathlib.Path):
        self.netns = platform.description["ext"]["netns"]
        self.wire = platform.description["ext"]["interfaces"][0]["ifname"]
        self.vm_ip = vm["addresses"]["tenant"][0]["addr"]
        self.vm_mac = vm["addresses"]["tenant"][0]["OS-EXT-IPS-MAC:mac_addr"]
        self.workdir = workdir
        self.gateway: Proc | None = None

    def start(self) -> None:
        ns = self.netns
        system.run(["ip", "-n", ns, "link", "add", "site0", "type", "veth", "peer", "name", "gw0"])
        for ifname in ("site0", "gw0"):
            system.run(["ethtool", "-K", ifname, "tx", "off"], netns=ns)
            system.run(["ip", "-n", ns, "link", "set", ifname, "up"])
        system.run(["ip", "-n", ns, "addr", "add", SITE_IP, "dev", "site0"])
        system.run(["ip", "-n", ns, "route", "replace", f"{self.vm_ip}/32", "dev", "site0"])
        system.run(["ip", "-n", ns, "neigh", "replace", self.vm_ip, "lladdr", self.vm_mac, "dev", "site0",
                    "nud", "permanent"])
        config = self.workdir / "remote-secgw.conf"
        config.write_text(secgw_config(SERVER_END.peer(), SITE_NET, TENANT_NET))
        self.gateway = Proc("remote-secgw", ["ip", "netns", "exec", ns, str(REPO / "nfs/build/bin/secgw"),
                                             "--iface", "gw0", "--out-iface", self.wire, "--config", str(config),
                                             "--control", str(self.workdir / "remote-secgw.sock")],
                            self.workdir / "remote-secgw.log")
        wait_for(lambda: (self.workdir / "remote-secgw.sock").exists(), 10, "the remote site's gateway")

    def losses(self) -> dict[str, int]:
        """What the remote gateway lost in its ring and its sends (it never holds)."""
        with NfControl(str(self.workdir / "remote-secgw.sock")) as gateway:
            places = nf_loss_places(gateway.stats())
        return {f"remote gateway {place}": places[place] for place in ("ring", "send")}

    def stop(self) -> None:
        if self.gateway:
            self.gateway.stop()


class Timeline:
    """Samples where each NF runs while the demo runs."""

    def __init__(self, agent_url: str, names: list[str]):
        self.agent_url, self.names = agent_url, names
        self.samples: list[tuple[float, dict[str, str]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            try:
                status, body = http_json(f"{self.agent_url}/v2.1/servers/detail", timeout=10)
            except OSError as exc:      # a missed sample; the demo reports what it saw
                log.warning("timeline: %s", exc)
                continue
            if status == 200:
                sides = {s["name"]: s["OS-EXT-SRV-ATTR:hypervisor_hostname"] for s in body["servers"]
                         if s["name"] in self.names}
                self.samples.append((time.time(), sides))

    def migrations(self) -> list[tuple[float, str, str, str]]:
        moves, last = [], {}
        for when, sides in self.samples:
            for name, side in sides.items():
                if name in last and last[name] != side:
                    moves.append((when, name, last[name], side))
                last[name] = side
        return moves


class Demo:
    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.report_dir = pathlib.Path(args.report_dir)
        self.workdir = pathlib.Path(tempfile.mkdtemp(prefix="uno-demo-"))
        self.lines: list[str] = []
        self.platform = None
        self.stack: Stack | None = None
        self.site: RemoteSite | None = None

    def say(self, line: str) -> None:
        print(line, flush=True)
        self.lines.append(line)

    def up(self) -> None:
        def make_platform(controller: str):
            self.platform = uno_platform.up(TestbedSpec(prefix=self.args.prefix, snic_cores=0.5, pcie_gbps=1.0,
                                                        vms=0, wire_ports=1,
                                                        **platform_args(self.args.profile, controller)),
                                            self.args.profile)
            return self.platform

        self.stack = Stack(self.workdir, make_platform, {
            "flavors_file": str(DEMO_FLAVORS),
            "monitor": {"interval_s": 0.5, "replace_every": 2, "threshold_cores": 0.05, "dampening_s": 15}})
        desc = self.platform.description
        self.say(f"platform {desc['prefix']} ({desc['profile']}): host + sNIC (0.5 cores), PCIe 1 Gbit/s, wire port "
                 f"{desc['ext']['interfaces'][0]['port']}")
        self.say(f"OneSwitch up: the os-ken controller sees one OpenFlow 1.3 switch; uno-agent at "
                 f"{self.stack.agent_url}/")

    def build_chain(self) -> None:
        stack = self.stack
        create = [("tenant", "vm.small", {}),
                  ("secgw", "secgw", {"uno:nf_config": secgw_config(SERVER_END, TENANT_NET, SITE_NET)}),
                  ("l7fw", "l7fw", {"uno:nf_config": "block proto Telnet\n"}),
                  ("monitor", "monitor", {})]
        self.servers = {}
        for name, flavor, extra in create:
            if flavor != "vm.small":
                extra = {**extra, "uno:expected_gbps": phases(1)[0].mbps / 1000}
            server = stack.create(name, flavor, **extra)
            self.servers[name] = server
            placement = stack.api("GET", "/v2.1/uno/placement")["placement"]
            why = placement.get("detail", {})
            self.say(f"created {name:8} ({flavor}): runs on {server['OS-EXT-SRV-ATTR:hypervisor_hostname']:6}"
                     f" virtual port {server['ports'][0]['virtual_port']}; solver {placement['status']}, "
                     f"host CPU {why.get('host', {}).get('cpu', 0):.3f} cores, sNIC CPU "
                     f"{why.get('snics', {}).get('snic0', {}).get('usage', {}).get('cpu', 0):.3f} of 0.5")
        vm = self.servers["tenant"]
        system.run(["ip", "-n", vm_netns(self.platform.prefix, vm), "route", "add", "default", "dev", "eth0"])
        wire = self.platform.description["ext"]["interfaces"][0]["port"]
        chain = stack.chain("sd-wan", vm, [self.servers[n] for n in ("monitor", "l7fw", "secgw")], wire)
        stack.set_chains([chain])
        self.say(f"controller chain (virtual ports only): wire {chain['exit']} -> secgw -> l7fw -> monitor -> "
                 f"VM {chain['client']}")
        self.site = RemoteSite(self.platform, vm, self.workdir)
        self.site.start()
        self.say(f"remote site {SITE_IP} behind its own secgw, tunnel {GW_REMOTE} -> {GW_LOCAL} (ESP, AES-GCM)")

    def run_traffic(self) -> dict:
        """A steady stream for the whole run, a second one from the rising phase to the end of the high
        one, and a third during the high phase: the load rises in two steps and falls at once.

        The steady stream never pauses, so its loss, duplicate and order counts cover every migration.
        """
        vm_ns = vm_netns(self.platform.prefix, self.servers["tenant"])
        vm_ip = self.servers["tenant"]["addresses"]["tenant"][0]["addr"]
        low, rising, high, low_again = phases(0.4 if self.args.short else 1.0)
        timeline = Timeline(self.stack.agent_url, ["secgw", "l7fw", "monitor"])
        timeline.start()
        sampler = None
        try:
            wait_for(lambda: _probe(self.site.netns, vm_ns, vm_ip), 30, "the tunnel and chain to forward")
            sampler = Sampler(self.read_losses)
            sampler.start()
            started = time.time()
            total = low.seconds + rising.seconds + high.seconds + low_again.seconds

            def stream(mbps: float, seconds: float, index: int) -> NumberedUdp:
                return NumberedUdp(self.site.netns, vm_ns, vm_ip, flows=100, pps=_pps(mbps), seconds=seconds,
                                   size=FRAME - 28, port=9999 + index, sport=20000 + 1000 * index, idle=1.0)

            with stream(low.mbps, total, 0) as steady:
                self._phase(low, timeline, low.seconds)
                self._phase(rising, timeline, 0)
                with stream(rising.mbps - low.mbps, rising.seconds + high.seconds, 1) as rise:
                    time.sleep(rising.seconds)
                    self._phase(high, timeline, 0)
                    with stream(high.mbps - rising.mbps, high.seconds, 2) as surge:
                        pass
                self._phase(low_again, timeline, max(0.0, started + total - time.time()))
        finally:
            timeline.stop()
            counted = sampler.stop() if sampler else {}
        runs = {"steady stream": steady, "rise": rise, "surge": surge}
        for name, run in runs.items():
            self.say(f"{name}: sent {sum(run.result['sent'].values())}, lost {run.lost}, duplicated "
                     f"{run.result['duplicates']}, reordered {run.result['reordered']}; its source ran late by at "
                     f"most {run.result['source_late_max_s'] * 1e3:.0f} ms")
            counted.update({f"{name} receiver socket": run.result["socket_drops"],
                            f"{name} sender refused": run.result["send_refused"]})
        attribution = Attribution(lost=sum(run.lost for run in runs.values()),
                                  counted={place: n for place, n in counted.items() if n})
        return {"started": started, "results": list(runs.values()), "timeline": timeline,
                "attribution": attribution}

    def read_losses(self) -> dict[str, int]:
        """Every drop counter of the run: the agent's (NFs and platform) and the remote gateway's."""
        return {**flatten(self.stack.api("GET", "/v2.1/uno/losses")["losses"]), **self.site.losses()}

    def _phase(self, phase: Phase, timeline: Timeline, seconds: float) -> None:
        sides = timeline.samples[-1][1] if timeline.samples else {}
        self.say(f"phase {phase.name!r}: {phase.mbps:g} Mbit/s ({_pps(phase.mbps):.0f} packets/s over 100 flows) for "
                 f"{phase.seconds:.0f} s; NFs on " + ", ".join(f"{n} {s}" for n, s in sorted(sides.items())))
        time.sleep(seconds)

    def report(self, traffic: dict) -> bool:
        moves = traffic["timeline"].migrations()
        for report in self.stack.api("GET", "/v2.1/uno/migrations")["migrations"]:
            name = next(n for n, s in self.servers.items() if s["id"] == report["server"])
            outcome = f"rolled back ({report['rollback_reason']})" if report["rolled_back"] else "done"
            self.say(f"migration of {name} {report['source']} -> {report['target']} {outcome}: packets waited at most "
                     f"{report['held_window_s'] * 1e3:.1f} ms (hold of {report['hold_packets']} packets), "
                     f"{report['flows']} flows, {report['state_bytes']} "
                     f"bytes of state, {report['packets_moved']} late packets moved from the old NF, "
                     f"{report['nf_losses']} lost by the NFs")
        for when, name, src, dst in moves:
            self.say(f"  seen at t={when - traffic['started']:.1f} s: {name} {src} -> {dst}")
        placement = self.stack.api("GET", "/v2.1/uno/placement")["placement"]
        self.say(f"last placement decision ({placement['trigger']}): {decision_text(placement)}")
        attribution: Attribution = traffic["attribution"]
        for line in attribution.lines():
            self.say(line)
        dup = sum(run.result["duplicates"] for run in traffic["results"])
        reordered = sum(run.result["reordered"] for run in traffic["results"])
        ok = (attribution.migration == 0 and attribution.unattributed == 0 and dup == 0 and reordered == 0
              and len(moves) > 0)
        self.say(f"migrations lost nothing: {attribution.migration} lost by migrations, {dup} duplicated, "
                 f"{reordered} reordered over {len(moves)} migrations; {attribution.lost} lost in all, "
                 f"{attribution.unattributed} unattributed -> {'OK' if ok else 'FAILED'}")
        self.report_dir.mkdir(parents=True, exist_ok=True)
        plot_timeline(traffic, moves, self.report_dir / "timeline.png")
        (self.report_dir / "report.txt").write_text("\n".join(self.lines) + "\n")
        self.say(f"report: {self.report_dir / 'report.txt'} and {self.report_dir / 'timeline.png'}")
        return ok

    def down(self) -> None:
        if self.site:
            self.site.stop()
        if self.stack:
            self.stack.stop()
        if self.platform is not None:
            problems = uno_platform.down(self.platform.prefix)
            self.say("platform down" + (f" with problems: {problems}" if problems else ", nothing left"))


def decision_text(placement: dict) -> str:
    """A placement decision for the report: what it saves, or why no placement was possible."""
    detail = placement.get("detail", {})
    if placement["status"] == "infeasible":
        return f"infeasible: {detail.get('explanation') or 'the solver gave no reason'}"
    return f"{placement['status']}, saving {detail.get('host_cpu_saving', 0):.3f} host cores"


def _pps(mbps: float) -> float:
    return mbps * 1e6 / 8 / FRAME


def _probe(source_ns: str, sink_ns: str, sink_ip: str) -> bool:
    with NumberedUdp(source_ns, sink_ns, sink_ip, flows=1, pps=50, seconds=0.2, idle=0.5) as run:
        pass
    return sum(run.result["received"].values()) > 0


def plot_timeline(traffic: dict, moves: list, path: pathlib.Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = traffic["started"]
    fig, (ax_rate, ax_side) = plt.subplots(2, 1, figsize=(10, 6), sharex=True,
                                            gridspec_kw={"height_ratios": [2, 1]})
    buckets: dict[int, int] = {}
    for run in traffic["results"]:
        for t in run.result["arrivals"]:
            buckets[int((t - start) * 4)] = buckets.get(int((t - start) * 4), 0) + 1
    xs = range(min(buckets, default=0), max(buckets, default=0) + 1)
    ax_rate.plot([x / 4 for x in xs], [buckets.get(x, 0) * 4 * FRAME * 8 / 1e6 for x in xs], color="tab:blue")
    ax_rate.set_ylabel("received at the VM (Mbit/s)")
    ax_rate.set_title("UNO demo: SD-WAN chain, load changes, live migrations")
    names = ["secgw", "l7fw", "monitor"]
    for i, name in enumerate(names):
        points = [(t - start, 1 if sides.get(name) == "host" else 0) for t, sides in traffic["timeline"].samples]
        if points:
            ax_side.step([p[0] for p in points], [p[1] + i * 1.5 for p in points], where="post", label=name)
    ax_side.set_yticks([v + i * 1.5 for i in range(len(names)) for v in (0, 1)])
    ax_side.set_yticklabels([f"{n}: {s}" for n in names for s in ("sNIC", "host")], fontsize=7)
    for when, name, _src, dst in moves:
        for ax in (ax_rate, ax_side):
            ax.axvline(when - start, color="tab:red", alpha=0.4, linestyle="--")
        ax_rate.annotate(f"{name}->{dst}", (when - start, 0), rotation=90, fontsize=7, va="bottom")
    ax_side.set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")
    args = parse_args(argv)
    demo = Demo(args)
    began = time.monotonic()
    ok = False
    try:
        demo.up()
        demo.build_chain()
        ok = demo.report(demo.run_traffic())
    except (PlatformError, RuntimeError, TimeoutError, subprocess.SubprocessError) as exc:
        print(f"demo: {exc}", file=sys.stderr)
        if demo.stack:
            print(demo.stack.logs(20), file=sys.stderr)
    finally:
        demo.down()
        print(f"demo took {time.monotonic() - began:.0f} s", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
