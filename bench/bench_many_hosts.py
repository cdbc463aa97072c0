"""Many UNO hosts under one controller (issue 18): N emulated hosts on this machine (N = MANY_HOSTS, default
HOSTS), each with its own platform (a host switch, an sNIC switch, a VM), OneSwitch and agent, their wire ports
joined by a top-of-rack Open vSwitch bridge, all driven by one Floodlight (its default modules: Forwarding learns
and installs paths, link discovery every 15 s).

The same scenario runs twice, in one run: Floodlight drives the N OneSwitches (UNO), then the 2N physical bridges
of the same hosts directly; the top-of-rack switch is under it both times. Reported for each:
- whether every VM reaches the next host's VM (a ring of pings across the fabric; a pair whose first three pings,
  sent while the controller sets up the path, all go unanswered tries again after the window, counted apart);
- the controller's OpenFlow messages (both directions, from a capture of its port on the loopback: each TCP
  stream is put back in order and walked by the OpenFlow header's length; counted by type) and its CPU time,
  during the setup (switches connecting, the first link discovery) and during a WINDOW_S window that holds the
  pings (reactive forwarding) and three rounds of Floodlight's periodic work;
- the controller's resident size at the end of the window;
- the memory the machine gave the scenario (MemAvailable before, after the first host, after all), hence what one
  more host costs and how many would fit, and each OneSwitch's and agent's resident size (the JVM's own heap
  sizing);
- UNO only: host 0's agent migrates a monitor host <-> sNIC while numbered UDP streams run from host 0's VM to
  host 1's and from host 1's to host 2's: their loss, duplicates and reordering, and the controller's messages
  against the same streams without migrations.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import pathlib
import struct
import subprocess
import tempfile
import time
import urllib.request

from uno_oneswitch.client import http_json

import uno_platform
from bench.bench_flow_id import cpu_seconds
from bench.bench_oneswitch import environment
from uno_harness.agent import OneSwitchPorts, start_agent
from uno_harness.attacks import rss_bytes
from uno_harness.oneswitch import start_oneswitch, wait_healthy
from uno_harness.processes import Proc, free_port, wait_for
from uno_platform.ovs import SCHEMA, OvsInstance
from uno_platform.spec import TestbedSpec
from uno_platform.traffic import NumberedUdp, ping

log = logging.getLogger(__name__)

HOSTS = 40
MB = 1024 * 1024
PREFIX = "mh"
FABRIC_NETNS = "mhfabric"
FLOODLIGHT = pathlib.Path(__file__).resolve().parents[2] / "shared" / "controllers" / "floodlight"
PINGS = 3
WINDOW_S = 45.0  # three rounds of Floodlight's link discovery (every 15 s)
TOR_DPID = 0x746f72  # "tor"
UNO_DPID_BASE = 0x554e4f000000  # host i's OneSwitch is this + i + 1 ("UNO" and the number)
MIGRATIONS = 4
# OpenFlow 1.3 message types worth naming in the counts (the others are counted by number)
OFPT_NAMES = {0: "HELLO", 1: "ERROR", 2: "ECHO_REQUEST", 3: "ECHO_REPLY", 5: "FEATURES_REQUEST",
              6: "FEATURES_REPLY", 7: "GET_CONFIG_REQUEST", 8: "GET_CONFIG_REPLY", 9: "SET_CONFIG", 10: "PACKET_IN",
              11: "FLOW_REMOVED", 12: "PORT_STATUS", 13: "PACKET_OUT", 14: "FLOW_MOD", 15: "GROUP_MOD",
              18: "MULTIPART_REQUEST", 19: "MULTIPART_REPLY", 20: "BARRIER_REQUEST", 21: "BARRIER_REPLY",
              24: "ROLE_REQUEST", 25: "ROLE_REPLY"}
STREAM_PPS = 1000
STREAM_S = 12.0


def _prefix(i: int) -> str:
    return f"{PREFIX}{i}-"


@contextlib.contextmanager
def _floodlight(run_dir: pathlib.Path):
    of_port, rest_port = free_port(), free_port()
    subprocess.run([str(FLOODLIGHT / "floodlight.sh"), "start", str(run_dir), str(of_port), str(rest_port)],
                   check=True, capture_output=True, timeout=180)
    try:
        yield of_port, rest_port, int((run_dir / "floodlight.pid").read_text())
    finally:
        subprocess.run([str(FLOODLIGHT / "floodlight.sh"), "stop", str(run_dir)], capture_output=True, timeout=60)


def _dpid_text(dpid: int) -> str:
    """A datapath id as Floodlight writes it: eight hex bytes separated by colons."""
    return ":".join(f"{b:02x}" for b in dpid.to_bytes(8, "big"))


def _readdress(platform, i: int) -> dict:
    """The VM of host i gets an address and a MAC of its own (every platform numbers its VMs alike)."""
    vm = platform.description["vms"][0]
    ns, ip, mac = vm["netns"], f"10.77.{i}.1", f"02:77:00:00:{i:02x}:01"
    for cmd in (["link", "set", "eth0", "down"], ["link", "set", "eth0", "address", mac],
                ["addr", "flush", "dev", "eth0"], ["addr", "add", f"{ip}/16", "dev", "eth0"],
                ["link", "set", "eth0", "up"]):
        subprocess.run(["ip", "-n", ns, *cmd], check=True, capture_output=True, timeout=30)
    return {"netns": ns, "ip": ip}


def _links(rest_port: int) -> list[dict]:
    """Floodlight's links between switches, as its REST API lists them."""
    with urllib.request.urlopen(f"http://127.0.0.1:{rest_port}/wm/topology/links/json", timeout=10) as r:
        return json.loads(r.read())


def _wait_for_links(rest_port: int, expected: int) -> int:
    """Waits until Floodlight's link discovery has found `expected` links (a host's OneSwitch to the fabric's
    switch; or its sNIC bridge to the fabric's and its host bridge to its sNIC's): a round every 15 s, and a route
    through a link not found yet does not exist for Forwarding."""
    return wait_for(lambda: (found := len(_links(rest_port))) >= expected and found, 90,
                    f"Floodlight to discover {expected} links between the switches", interval=1)


def _diagnose(rest_port: int, vms: list[dict], i: int, hosts: int) -> dict:
    """Where Floodlight's device manager sees host i's VM and the next host's (its attachment points)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{rest_port}/wm/device/", timeout=10) as r:
        devices = json.loads(r.read())
    devices = devices.get("devices", devices) if isinstance(devices, dict) else devices
    wanted = {vms[j]["ip"]: j for j in (i, (i + 1) % hosts)}
    return {str(wanted[ip]): d.get("attachmentPoint") for d in devices for ip in d.get("ipv4", []) if ip in wanted}


def _controller_relay(sock: pathlib.Path, of_port: int) -> Proc:
    """A relay from a Unix socket (a bridge in a namespace connects to it) to the controller on this loopback."""
    relay = Proc("controller-relay", ["socat", f"UNIX-LISTEN:{sock},fork,unlink-early,mode=600",
                                      f"TCP:127.0.0.1:{of_port}"], sock.with_suffix(".log"))
    wait_for(sock.exists, 10, f"the controller relay {sock}")
    return relay


def _connect_directly(platform, i: int, of_port: int) -> list[Proc]:
    """Points host i's bridges at the controller, each with a datapath id of its own first (every platform numbers
    its bridges alike, host 1 and sNIC 2: connected as they are, they would replace each other's connection)."""
    relays = []
    for k, sw in enumerate(platform.description["switches"]):
        sock = pathlib.Path(sw["rundir"]) / "bench-controller.sock"
        relays.append(_controller_relay(sock, of_port))
        platform.ovs(sw["id"]).vsctl("set", "bridge", sw["bridge"],
                                     f"other-config:datapath-id=00000000{i + 1:04x}{k + 1:04x}", "--",
                                     "set-controller", sw["bridge"], f"unix:{sock}")
    return relays


@contextlib.contextmanager
def _top_of_rack(workdir: pathlib.Path, of_port: int):
    """The fabric: one Open vSwitch bridge (a top-of-rack switch, userspace datapath) in its own namespace,
    driven by the same controller as the hosts, so that its link discovery sees every host's wire port (a
    Linux bridge there hid the hosts from each other's LLDP, and with three hosts Floodlight found no route).
    Yields a function that plugs an interface into it."""
    ovs = OvsInstance(workdir / "tor", FABRIC_NETNS)   # its paths and ovs-vsctl; its daemons are ours, by pid
    ovs.rundir.mkdir()
    env = {**os.environ, "OVS_RUNDIR": str(ovs.rundir), "OVS_LOGDIR": str(ovs.rundir), "OVS_DBDIR": str(ovs.rundir)}
    procs: list[Proc] = []
    subprocess.run(["ip", "netns", "add", FABRIC_NETNS], check=True, capture_output=True)
    try:
        subprocess.run(["ovsdb-tool", "create", str(ovs.rundir / "conf.db"), SCHEMA], check=True,
                       capture_output=True)
        in_ns = ["ip", "netns", "exec", FABRIC_NETNS]
        procs.append(Proc("tor-ovsdb", [*in_ns, "ovsdb-server", str(ovs.rundir / "conf.db"),
                                        f"--remote=p{ovs.db_socket}", f"--unixctl={ovs.rundir}/ovsdb-server.ctl"],
                          ovs.rundir / "ovsdb.log", env=env))
        wait_for(lambda: (ovs.rundir / "db.sock").exists(), 10, "the fabric's ovsdb-server")
        ovs.vsctl("--no-wait", "init")
        procs.append(Proc("tor-vswitchd", [*in_ns, "ovs-vswitchd", ovs.db_socket,
                                           f"--unixctl={ovs.rundir}/ovs-vswitchd.ctl"],
                          ovs.rundir / "vswitchd.log", env=env))
        relay = ovs.rundir / "controller.sock"
        procs.append(_controller_relay(relay, of_port))
        ovs.vsctl("add-br", "tor", "--", "set", "bridge", "tor", "datapath_type=netdev", "fail-mode=secure",
                  "protocols=OpenFlow13", f"other-config:datapath-id={TOR_DPID:016x}", "--",
                  "set-controller", "tor", f"unix:{relay}")

        def plug(ifname: str) -> None:
            ovs.vsctl("add-port", "tor", ifname)
        yield plug
    finally:
        for proc in reversed(procs):
            proc.stop()
        subprocess.run(["ip", "netns", "del", FABRIC_NETNS], capture_output=True)


def _join_fabric(platforms, plug) -> None:
    """Moves each platform's wire interface from its ext namespace to the fabric's, as a port of its switch."""
    for i, p in enumerate(platforms):
        ext = p.description["ext"]
        ifname, name = ext["interfaces"][0]["ifname"], f"w{i}"
        subprocess.run(["ip", "-n", ext["netns"], "link", "set", ifname, "netns", FABRIC_NETNS, "name", name],
                       check=True, capture_output=True)
        subprocess.run(["ip", "-n", FABRIC_NETNS, "link", "set", name, "up"], check=True, capture_output=True)
        plug(name)


def _openflow_messages(pcap: pathlib.Path, port: int) -> dict:
    """OpenFlow messages to and from `port` in a pcap of the loopback (Ethernet-framed, IPv4/TCP)."""
    data = pcap.read_bytes()
    streams: dict[tuple, dict[int, bytes]] = {}
    at = 24
    while at + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, at + 8)[0]
        frame = data[at + 16:at + 16 + caplen]
        at += 16 + caplen
        if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
            continue
        ihl = (frame[14] & 0x0f) * 4
        tcp = frame[14 + ihl:]
        sport, dport, seq = struct.unpack_from("!HHI", tcp)
        payload = tcp[(tcp[12] >> 4) * 4:]
        if payload and port in (sport, dport):
            streams.setdefault((frame[26:30], sport, frame[30:34], dport), {})[seq] = payload
    counts = {"to_controller": 0, "from_controller": 0, "bytes": 0, "by_type": {}}
    for (_, sport, _, _), segments in streams.items():
        key = "from_controller" if sport == port else "to_controller"
        stream, starts = b"", []
        for seq in sorted(segments):  # no sequence wrap in a short run
            starts.append(len(stream))
            stream += segments[seq]
        # The capture starts in the middle of every stream: a header that is not OpenFlow 1.3's (version 4,
        # a type up to 29, a length of at least 8) means the walk is out of step; it goes on from the next
        # segment, where the switches and Floodlight start a message.
        pos = 0
        while pos + 8 <= len(stream):
            version, kind, length = struct.unpack_from("!BBH", stream, pos)
            if version != 4 or kind > 29 or length < 8:
                pos = next((b for b in starts if b > pos), len(stream))
                continue
            counts[key] += 1
            name = OFPT_NAMES.get(kind, str(kind))
            counts["by_type"][name] = counts["by_type"].get(name, 0) + 1
            pos += length
        counts["bytes"] += len(stream)
    counts["messages"] = counts["to_controller"] + counts["from_controller"]
    return counts


def _streams(vms: list[dict], seconds: float) -> list[NumberedUdp]:
    """One numbered UDP stream from host 0's VM to host 1's (across the host where the migrations happen) and one
    from host 1's to host 2's (two other hosts)."""
    return [NumberedUdp(vms[a]["netns"], vms[b]["netns"], vms[b]["ip"], flows=1, pps=STREAM_PPS, seconds=seconds)
            for a, b in ((0, 1), (1, 2))]


def _links_of(rest_port: int, datapath_id: str) -> int:
    """How many of Floodlight's links start at the switch `datapath_id` (colon-separated hex)."""
    return sum(1 for link in _links(rest_port) if link["src-switch"] == datapath_id)


def _migrations_elsewhere(url: str, vms: list[dict], pcaps: pathlib.Path, of_port: int, fl_rest: int) -> dict:
    """Host 0's agent (at `url`) launches a monitor, then the streams run twice for STREAM_S: quiet, then while the
    monitor is migrated host <-> sNIC MIGRATIONS times. What the streams lost, duplicated or reordered, and the
    controller's messages against the quiet run's, are what the migrations cost the other tenants and hosts."""
    host0 = _dpid_text(UNO_DPID_BASE + 1)
    links = _links_of(fl_rest, host0)
    status, created = http_json(url + "/v2.1/servers", "POST", {"server": {"name": "mon", "flavorRef": "monitor"}},
                                timeout=120)
    if status != 202:
        raise RuntimeError(f"the monitor was not created: {status} {created}")
    server = created["server"]["id"]
    wait_for(lambda: _server(url, server)["status"] == "ACTIVE", 60, "the monitor to run")
    # The monitor's port is a new port of host 0's switch, and the monitor sends Floodlight's LLDP back out of
    # it: Floodlight's next discovery round finds that link, recomputes its topology and sets up paths again
    # (thousands of PACKET_INs, reordering). The streams start once it has.
    try:
        wait_for(lambda: _links_of(fl_rest, host0) > links, 40, "the monitor's link")
        time.sleep(2.0)  # the recomputation and the paths' deletion that follow it
    except TimeoutError:
        log.warning("Floodlight found no link through the monitor's port in 40 s")
    # The first packets of a stream go through the controller (Forwarding installs the path then): a short stream
    # on the same addresses first, so that the measured ones only meet installed paths.
    for warm in _streams(vms, 1.0):
        with warm:
            pass
    runs = {}
    for name, migrations in (("quiet", 0), ("migrating", MIGRATIONS)):
        reports = []
        with _openflow_capture(pcaps / f"{name}.pcap", of_port), contextlib.ExitStack() as running:
            streams = [running.enter_context(s) for s in _streams(vms, STREAM_S)]
            time.sleep(1.0)
            for _ in range(migrations):
                on = _server(url, server)["OS-EXT-SRV-ATTR:hypervisor_hostname"]
                target = "host" if on != "host" else "snic0"
                status, answer = http_json(f"{url}/v2.1/servers/{server}/action", "POST",
                                           {"migrate": {"host": target}}, timeout=120)
                if status != 202:
                    raise RuntimeError(f"migration to {target} refused: {status} {answer}")
                wait_for(lambda: _server(url, server)["status"] != "MIGRATING", 60, f"the migration to {target}")
                reports.append(http_json(url + "/v2.1/uno/migrations", timeout=30)[1]["migrations"][-1])
        runs[name] = {
            "migrations": len(reports), "rolled_back": sum(1 for r in reports if r["rolled_back"]),
            "streams": [{"from_host": a, "to_host": b, "sent": sum(s.result["sent"].values()), "lost": s.lost,
                         "duplicates": s.result["duplicates"], "reordered": s.result["reordered"]}
                        for (a, b), s in zip(((0, 1), (1, 2)), streams, strict=True)],
            "openflow": _openflow_messages(pcaps / f"{name}.pcap", of_port)}
    http_json(f"{url}/v2.1/servers/{server}", "DELETE", timeout=60)
    return runs


def _server(url: str, server: str) -> dict:
    return http_json(f"{url}/v2.1/servers/{server}", timeout=30)[1]["server"]


@contextlib.contextmanager
def _openflow_capture(pcap: pathlib.Path, port: int):
    """tcpdump of the controller's OpenFlow port on the loopback while the block runs; stopped by its pid."""
    capture = subprocess.Popen(["tcpdump", "-i", "lo", "-U", "-s", "0", "-w", str(pcap), f"tcp port {port}"],
                               stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: pcap.exists(), 10, "tcpdump to start")
        time.sleep(0.5)  # it has opened its socket by the time it writes the file header
        yield
    finally:
        capture.terminate()
        capture.wait(timeout=30)


def _machine_busy_seconds() -> float:
    """CPU time spent on this machine's cores (everything but idle and iowait) so far, in seconds."""
    fields = [int(v) for v in pathlib.Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _host(workdir: pathlib.Path, i: int, uno: bool, of_port: int, procs: list[Proc]):
    """Host i: its platform and, with `uno`, its OneSwitch (a datapath id of its own) and agent, whose processes go
    to `procs` as they start; its bridges reach the controller through OneSwitch, or directly. Returns the platform
    and the agent's port (None without UNO)."""
    ports = OneSwitchPorts.free()
    platform = uno_platform.up(TestbedSpec(prefix=_prefix(i), vms=1, wire_ports=1, snic_cores=0.5,
                                           controller=f"tcp:127.0.0.1:{ports.south}" if uno else None))
    if not uno:
        procs.extend(_connect_directly(platform, i, of_port))
        return platform, None
    desc = platform.description
    oneswitch = start_oneswitch(f"{desc['state_dir']}/platform.json", workdir / f"oneswitch{i}.log",
                                listen=ports.listen, south=ports.south, rest_port=ports.rest, controller=of_port,
                                jvm_options=(), extra=["--datapath-id", f"0x{UNO_DPID_BASE + i + 1:016x}"])
    procs.append(oneswitch)
    wait_healthy(oneswitch, ports.rest, controllers=1, timeout=120, platform=platform)
    agent_port = free_port()
    procs.append(start_agent(_prefix(i), str(pathlib.Path(desc["state_dir"]).parent), ports, agent_port,
                             workdir / f"agent{i}.log", {"monitor": {"enabled": False}}))
    return platform, agent_port


def _run(workdir: pathlib.Path, hosts: int, uno: bool) -> dict:
    """One configuration: Floodlight drives the hosts' OneSwitches (`uno`), or their 2N bridges directly."""
    platforms, procs, agent_ports, migrations = [], [], [], None
    available = [_mem_available_mb()]
    with _floodlight(workdir / "floodlight") as (of_port, fl_rest, fl_pid), _top_of_rack(workdir, of_port) as plug:
        setup_capture = contextlib.ExitStack()
        try:
            setup_capture.enter_context(_openflow_capture(workdir / "setup.pcap", of_port))
            started, setup_cpu = time.monotonic(), cpu_seconds(fl_pid)
            for i in range(hosts):
                platform, agent_port = _host(workdir, i, uno, of_port, procs)
                platforms.append(platform)
                agent_ports.append(agent_port)
                if i == 0:
                    available.append(_mem_available_mb())
            _join_fabric(platforms, plug)
            vms = [_readdress(p, i) for i, p in enumerate(platforms)]
            links = _wait_for_links(fl_rest, hosts if uno else 2 * hosts)
            up_s, setup_cpu = time.monotonic() - started, cpu_seconds(fl_pid) - setup_cpu
            setup_capture.close()
            available.append(_mem_available_mb())
            with _openflow_capture(workdir / "window.pcap", of_port):
                window, cpu, busy = time.monotonic(), cpu_seconds(fl_pid), _machine_busy_seconds()
                unreached = [i for i in range(hosts)
                             if not ping(vms[i]["netns"], vms[(i + 1) % hosts]["ip"], count=PINGS)]
                time.sleep(max(0.0, WINDOW_S - (time.monotonic() - window)))
                cpu, busy = cpu_seconds(fl_pid) - cpu, _machine_busy_seconds() - busy
                window = time.monotonic() - window  # longer than WINDOW_S if the pings took longer
            controller_rss = rss_bytes(fl_pid) / MB
            # a pair whose three pings all went unanswered tries again once the window is over: counted apart
            retried = [i for i in unreached if ping(vms[i]["netns"], vms[(i + 1) % hosts]["ip"], count=PINGS)]
            diagnosis = {i: _diagnose(fl_rest, vms, i, hosts) for i in unreached}
            rss = {name: [round(rss_bytes(proc.pid) / MB, 1) for proc in procs if proc.name == name]
                   for name in ("oneswitch", "uno-agent") if uno}
            if uno and hosts >= 3:
                migrations = _migrations_elsewhere(f"http://127.0.0.1:{agent_ports[0]}", vms, workdir, of_port,
                                                   fl_rest)
        finally:
            setup_capture.close()
            for proc in procs:
                proc.stop()
            for i in range(len(platforms)):
                uno_platform.down(_prefix(i))
    # What the controller, the fabric and the first host took, and what each further host took.
    further = (available[1] - available[2]) / max(1, hosts - 1)
    return {"hosts": hosts, "switches_seen_by_controller": (hosts if uno else 2 * hosts) + 1,
            "links_discovered": links, "vms_reaching_the_next": hosts - len(unreached),
            "vms_not_reaching_the_next": unreached, "reached_when_tried_again": retried,
            "unreached_diagnosis": diagnosis, "setup_s": round(up_s, 1),
            "memory": {"available_before_mb": round(available[0]),
                       "used_with_one_host_mb": round(available[0] - available[1]),
                       "used_per_further_host_mb": round(further), "used_mb": round(available[0] - available[2]),
                       # the hosts that fit in what was available, at that cost per host (an estimate: not run)
                       "largest_n_estimate": 1 + int(available[1] // max(1.0, further))},
            "setup": {"controller_cpu_s": round(setup_cpu, 2),
                      "openflow": _openflow_messages(workdir / "setup.pcap", of_port)},
            "window_s": round(window, 1), "controller_cpu_s": round(cpu, 2),
            "controller_rss_mb": round(controller_rss), "machine_busy_cores": round(busy / window, 2),
            "openflow": _openflow_messages(workdir / "window.pcap", of_port), "rss_mb": rss,
            "migrations_on_host_0": migrations}


def _mem_available_mb() -> float:
    for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def main(results_dir: pathlib.Path) -> dict:
    hosts = int(os.environ.get("MANY_HOSTS", HOSTS))
    with tempfile.TemporaryDirectory(prefix="uno-bench-many-") as tmp:
        uno = _run(pathlib.Path(tmp) / "uno", hosts, uno=True)
        direct = _run(pathlib.Path(tmp) / "direct", hosts, uno=False)

    def ratio(uno_side: dict, direct_side: dict, key: str) -> float:
        return round(uno_side[key] / max(1e-9, direct_side[key]), 3)
    phases = {"setup": (uno["setup"], direct["setup"]), "window": (uno, direct)}
    result = {"benchmark": "many hosts under one Floodlight", "hosts": hosts, "uno": uno, "direct": direct,
              "messages_uno_over_direct": {phase: ratio(u["openflow"], d["openflow"], "messages")
                                           for phase, (u, d) in phases.items()},
              "controller_cpu_uno_over_direct": {phase: ratio(u, d, "controller_cpu_s")
                                                 for phase, (u, d) in phases.items()},
              "controller_rss_uno_over_direct": ratio(uno, direct, "controller_rss_mb"),
              "environment": environment()}
    (results_dir / "oneswitch-many-hosts.json").write_text(json.dumps(result, indent=2) + "\n")
    return {k: v for k, v in result.items() if k not in ("uno", "direct")}
