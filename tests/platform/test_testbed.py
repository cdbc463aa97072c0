"""The emulated platform, end to end on real OVS, veth, tc and cgroups (issue 2 acceptance)."""
import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

import uno_platform
from uno_platform import system
from uno_platform.emulated import _Builder
from uno_platform.errors import PlatformError, SpecError
from uno_platform.spec import TestbedSpec
from uno_platform.static_path import TAG_DOWN, TAG_UP, flow_packets, install_tagged_path, ofctl
from uno_platform.testing import unique_prefix
from uno_platform.traffic import ping, tcp_echo, tcp_throughput_mbps

pytestmark = pytest.mark.platform


def test_vm_reaches_ext_across_host_pcie_snic_with_flow_id_tags(testbed):
    desc = testbed.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    install_tagged_path(testbed, vm["port"], ext["port"])
    ext_ip = ext["ip"].split("/")[0]

    assert ping(vm["netns"], ext_ip)
    sent, received = tcp_echo(vm["netns"], desc["ext"]["netns"], ext_ip, nbytes=2 << 20)
    assert sent == received

    # The traffic really took the tagged path: both tag-matching rules counted packets,
    # and the tag never reached the VM or the outside (they would drop 802.1ad frames).
    time.sleep(1.5)  # userspace datapath pushes flow stats to the table about once a second
    assert flow_packets(testbed, "snic0")[f"in_port=1,dl_vlan={TAG_UP}"] > 0
    assert flow_packets(testbed, "host")[f"in_port=1,dl_vlan={TAG_DOWN}"] > 0


def test_pcie_link_is_shaped_to_the_configured_bandwidth(testbed_factory):
    platform = testbed_factory(pcie_gbps=0.1, snic_cores=1)
    desc = platform.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    install_tagged_path(platform, vm["port"], ext["port"])
    mbps = tcp_throughput_mbps(vm["netns"], desc["ext"]["netns"], ext["ip"].split("/")[0], seconds=5)
    assert mbps <= 110, f"{mbps:.1f} Mbit/s over a 100 Mbit/s link"
    assert mbps >= 30, f"only {mbps:.1f} Mbit/s: the path is broken, not shaped"


def _process_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in USER_HZ ticks


def test_snic_cpu_quota_caps_a_busy_process_and_is_accounted_on_the_snic(testbed_factory):
    platform = testbed_factory(snic_cores=0.5, vms=0)
    # Its quota is also a guaranteed share against siblings (issue 19): 8 default weights per core; the host's
    # data path is weighted for one core, and not capped.
    assert (platform.cgroup("snic0").cpu / "cpu.shares").read_text().strip() == "4096"
    assert (platform.cgroup("host").cpu / "cpu.shares").read_text().strip() == "8192"
    assert platform.cgroup("host").quota_cores() is None
    busy = platform.spawn("snic0", ["sh", "-c", "while :; do :; done"])
    try:
        time.sleep(0.3)
        before_proc, before = _process_cpu_seconds(busy.pid), platform.cpu_seconds()
        time.sleep(3)
        after_proc, after = _process_cpu_seconds(busy.pid), platform.cpu_seconds()
    finally:
        busy.kill()
        busy.wait()
    used = after_proc - before_proc
    assert used <= 0.55 * 3, f"busy process got {used / 3:.2f} CPU under a 0.5-core quota"
    assert used >= 0.2 * 3, f"busy process got only {used / 3:.2f} CPU: is it running at all?"
    snic_used = after["snic0"] - before["snic0"]
    host_used = after["host"] - before["host"]
    assert snic_used >= used * 0.95, "the sNIC accounting misses the busy process"
    assert host_used < 0.2 * used, "the busy process was accounted on the host"


def test_two_platforms_with_different_prefixes_do_not_interfere(testbed_factory):
    first = testbed_factory()
    second = testbed_factory()
    for platform in (first, second):
        desc = platform.description
        install_tagged_path(platform, desc["vms"][0]["port"], desc["ext"]["interfaces"][0]["port"])
    # Same addresses in both; each VM reaches only its own outside world.
    ext_ip = first.description["ext"]["interfaces"][0]["ip"].split("/")[0]
    assert ping(first.description["vms"][0]["netns"], ext_ip)
    assert ping(second.description["vms"][0]["netns"], ext_ip)
    # Taking one down leaves the other healthy and forwarding.
    assert uno_platform.down(first.prefix) == []
    assert uno_platform.load(second.prefix).status()["healthy"]
    assert ping(second.description["vms"][0]["netns"], ext_ip)


def _leftovers(prefix: str, pids: list[int]) -> list[str]:
    found = [f"netns {ns}" for ns in system.netns_list() if ns.startswith(prefix)]
    found += [f"link {line}" for line in system.run(["ip", "-o", "link"]).splitlines() if prefix in line]
    found += [f"qdisc {line}" for line in system.run(["tc", "qdisc", "show"]).splitlines() if prefix in line]
    found += [f"cgroup {name}" for name in uno_platform.cgroups.existing_names() if name.startswith(prefix)]
    found += [f"pid {pid}" for pid in pids if system.is_alive(pid, None)]
    found += [f"state dir {prefix}" for p in uno_platform.list_prefixes() if p == prefix]
    return found


def _platform_pids(platform) -> list[int]:
    pids = []
    for sw in platform.description["switches"]:
        for daemon in ("ovsdb-server", "ovs-vswitchd"):
            with open(f"{sw['rundir']}/{daemon}.pid") as f:
                pids.append(int(f.read()))
    return pids


def test_down_removes_everything_of_the_prefix():
    prefix = unique_prefix()
    platform = uno_platform.up(TestbedSpec(prefix=prefix, snics=2, vms=2, wire_ports=2,
                                           controller="tcp:127.0.0.1:6999"))
    try:
        pids = _platform_pids(platform)
        assert len(pids) == 6 and all(system.is_alive(p, None) for p in pids)
        # something a user started inside the testbed is stopped too
        platform.spawn("snic1", ["sleep", "600"])
    finally:
        problems = uno_platform.down(prefix)
    assert problems == []
    assert _leftovers(prefix, pids) == []


def test_failed_up_leaves_nothing_behind(monkeypatch):
    prefix = unique_prefix()
    started: list[int] = []
    real_switches = _Builder._switches

    def switches_then_fail(self):
        real_switches(self)
        started.extend(int((ovs.rundir / f"{d}.pid").read_text())
                       for ovs in self.ovs.values() for d in ("ovsdb-server", "ovs-vswitchd"))
        raise PlatformError("injected failure after the switches started")

    monkeypatch.setattr(_Builder, "_switches", switches_then_fail)
    with pytest.raises(PlatformError, match="injected failure"):
        uno_platform.up(TestbedSpec(prefix=prefix, vms=1))
    assert len(started) == 4
    assert _leftovers(prefix, started) == []


def test_prefix_in_use_is_refused_and_the_running_platform_is_untouched(testbed):
    with pytest.raises(SpecError, match="already in use"):
        uno_platform.up(TestbedSpec(prefix=testbed.prefix))
    assert uno_platform.load(testbed.prefix).status()["healthy"]


def test_cli_up_status_down_round_trip():
    prefix = unique_prefix()
    unoctl = [sys.executable, "-m", "uno_agent.unoctl", "testbed"]
    try:
        up = subprocess.run([*unoctl, "up", "--prefix", prefix, "--vms", "2", "--json"],
                            capture_output=True, text=True, timeout=60)
        assert up.returncode == 0, up.stderr
        desc = json.loads(up.stdout)
        assert [sw["id"] for sw in desc["switches"]] == ["host", "snic0"]
        again = subprocess.run([*unoctl, "up", "--prefix", prefix], capture_output=True, text=True)
        assert again.returncode != 0 and "already in use" in again.stderr
        status = subprocess.run([*unoctl, "status", "--prefix", prefix, "--json"],
                                capture_output=True, text=True, timeout=60)
        assert status.returncode == 0 and json.loads(status.stdout)["healthy"]
    finally:
        down = subprocess.run([*unoctl, "down", "--prefix", prefix], capture_output=True, text=True)
    assert down.returncode == 0, down.stderr
    assert _leftovers(prefix, []) == []


def test_bridges_connect_to_the_controller_through_the_relay(testbed_factory):
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.settimeout(15)
    platform = testbed_factory(controller=f"tcp:127.0.0.1:{port}", snics=2)
    hellos = []
    try:
        for _ in platform.description["switches"]:
            conn, _ = listener.accept()
            with conn:
                conn.settimeout(5)
                hellos.append(conn.recv(8))
    finally:
        listener.close()
    # OpenFlow HELLO from every bridge: version 0x04 (1.3 only), type 0
    assert len(hellos) == 3
    assert all(h[0] == 0x04 and h[1] == 0 for h in hellos)


def test_nf_ports_are_added_on_either_switch_and_removed(testbed_factory):
    platform = testbed_factory(vms=1)
    desc = platform.description
    for switch_id in ("host", "snic0"):
        port = platform.add_port(switch_id, f"{platform.prefix}n1")
        sw = platform.switch(switch_id)
        assert port["netns"] == sw["netns"] and port["ofport"] > 0
        listed = system.run(["ovs-vsctl", f"--db={sw['ovsdb']}", "list-ports", sw["bridge"]]).split()
        assert port["name"] in listed
        # a packet sent by the NF leaves the switch where the rules say: NF -> VM (host) / -> wire (sNIC)
        out = (platform.port("host", desc["vms"][0]["port"]) if switch_id == "host"
               else platform.port("snic0", desc["ext"]["interfaces"][0]["port"]))["ofport"]
        ofctl(platform, switch_id, "add-flow", f"in_port={port['ofport']},actions=output:{out}")
        before = system.run(["ovs-ofctl", "-O", "OpenFlow13", "dump-ports", sw["openflow"], str(out)])
        system.run(["ping", "-c", "2", "-i", "0.2", "-W", "1", "-I", port["nf_ifname"], "10.9.9.9"],
                   netns=port["netns"], check=False)
        after = system.run(["ovs-ofctl", "-O", "OpenFlow13", "dump-ports", sw["openflow"], str(out)])
        assert _tx_packets(after) > _tx_packets(before)
        # adding it again reuses the whole port as it is (an NF's spare): same OpenFlow port, same interfaces
        ifindex = system.run(["cat", f"/sys/class/net/{port['nf_ifname']}/ifindex"], netns=sw["netns"])
        assert platform.add_port(switch_id, port["name"]) == port
        assert system.run(["cat", f"/sys/class/net/{port['nf_ifname']}/ifindex"], netns=sw["netns"]) == ifindex
        platform.remove_port(switch_id, port["name"])
        listed = system.run(["ovs-vsctl", f"--db={sw['ovsdb']}", "list-ports", sw["bridge"]]).split()
        assert port["name"] not in listed
        assert not system.link_exists(port["name"], sw["netns"])
        assert not system.link_exists(port["nf_ifname"], sw["netns"])


def _tx_packets(dump_ports: str) -> int:
    return int(dump_ports.split("tx pkts=")[1].split(",")[0])


def test_port_backlog_is_what_the_switch_has_not_read_yet(testbed_factory):
    """What an NF sent while its switch did not run waits in the switch's receive queue of the port: the agent
    tears a port down only once that is empty (a busy host lost 3,137 packets once by not waiting)."""
    platform = testbed_factory(vms=0)
    port = platform.add_port("host", f"{platform.prefix}n1")
    vswitchd = platform.ovs("host").pid("ovs-vswitchd")
    assert platform.port_backlog("host", port["name"]) == 0
    os.kill(vswitchd, signal.SIGSTOP)
    try:
        system.run(["ping", "-c", "3", "-i", "0.2", "-W", "1", "-I", port["nf_ifname"], "10.9.9.9"],
                   netns=port["netns"], check=False)
        queued = platform.port_backlog("host", port["name"])
    finally:
        os.kill(vswitchd, signal.SIGCONT)
    assert queued > 0
    system.wait_for(lambda: platform.port_backlog("host", port["name"]) == 0, 5, "the switch to read the port")
    platform.remove_port("host", port["name"])
    assert platform.port_backlog("host", port["name"]) == 0


def test_vms_are_added_at_run_time_and_removed(testbed_factory):
    platform = testbed_factory(vms=1)
    vm = platform.add_vm(7)
    assert vm["ip"] == "10.0.0.8/24" and vm["netns"] == f"{platform.prefix}vm7"
    with pytest.raises(SpecError, match="already exists"):
        platform.add_vm(7)
    ext = platform.description["ext"]["interfaces"][0]
    # not in the static description: wire the path by hand with the returned ofport
    host_pcie = platform.port("host", platform.description["pcie_links"][0]["host_port"])["ofport"]
    ofctl(platform, "host", "add-flow", f"in_port={vm['ofport']},actions=output:{host_pcie}")
    ofctl(platform, "host", "add-flow", f"in_port={host_pcie},actions=output:{vm['ofport']}")
    wire = platform.port("snic0", ext["port"])["ofport"]
    ofctl(platform, "snic0", "add-flow", f"in_port=1,actions=output:{wire}")
    ofctl(platform, "snic0", "add-flow", f"in_port={wire},actions=output:1")
    assert ping(vm["netns"], ext["ip"].split("/")[0])
    platform.remove_vm(7)
    assert vm["netns"] not in system.netns_list()
    assert not system.link_exists(vm["port"], platform.switch("host")["netns"])
