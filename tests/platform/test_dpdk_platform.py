"""The emulated platform on its DPDK datapath (issue 21): OVS-DPDK switches that sleep when idle, a vhost-user
PCIe link, hugepages reserved by up and given back by down. Skipped, with the reason, where DPDK cannot run."""
import pathlib
import time

import pytest

import uno_platform
from uno_platform import dpdk, hugepages
from uno_platform.static_path import TAG_DOWN, TAG_UP, flow_packets, install_tagged_path
from uno_platform.traffic import ping, tcp_echo

NO_DPDK = dpdk.available() or hugepages.unavailable(dpdk.hugepages(2))
pytestmark = [pytest.mark.platform, pytest.mark.alone,   # hugepages are the machine's, and DPDK polls
              pytest.mark.skipif(bool(NO_DPDK), reason=f"no DPDK here: {NO_DPDK}")]

IDLE_SECONDS = 2.0


def _pool() -> int:
    return int((hugepages.POOL / "nr_hugepages").read_text())


def _exe(pid: int) -> str:
    return str(pathlib.Path(f"/proc/{pid}/exe").resolve())


def test_dpdk_switches_forward_across_the_vhost_link_sleep_when_idle_and_give_back_their_hugepages(
        testbed_factory):
    pool_before = _pool()
    platform = testbed_factory(datapath="dpdk", pcie_gbps=1.0)
    assert hugepages.free_pages() >= dpdk.NF_ROOM * dpdk.NF_PAGES  # room left for the NFs
    for sw in platform.description["switches"]:
        ovs = platform.ovs(sw["id"])
        assert ovs.vsctl("get", "Open_vSwitch", ".", "dpdk_initialized") == "true"
        assert _exe(ovs.pid("ovs-vswitchd")) == dpdk.VSWITCHD
    link = platform.description["pcie_links"][0]
    assert platform.ovs("host").vsctl("get", "Interface", link["host_port"], "type") == "dpdkvhostuser"
    assert platform.ovs("snic0").vsctl("get", "Interface", link["snic_port"], "type") == "dpdk"

    desc = platform.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    install_tagged_path(platform, vm["port"], ext["port"])
    ext_ip = ext["ip"].split("/")[0]
    assert ping(vm["netns"], ext_ip)
    sent, received = tcp_echo(vm["netns"], desc["ext"]["netns"], ext_ip, nbytes=2 << 20)
    assert sent == received
    time.sleep(1.5)  # flow statistics reach the table about once a second
    assert flow_packets(platform, "snic0")[f"in_port=1,dl_vlan={TAG_UP}"] > 0
    assert flow_packets(platform, "host")[f"in_port=1,dl_vlan={TAG_DOWN}"] > 0

    # Idle, each poll-mode thread sleeps (pmd-maxsleep): a switch that polled would use a whole core.
    before = platform.cpu_seconds()
    time.sleep(IDLE_SECONDS)
    after = platform.cpu_seconds()
    idle = {sw: (after[sw] - before[sw]) / IDLE_SECONDS for sw in after}
    assert all(cores < 0.5 for cores in idle.values()), idle

    assert uno_platform.down(platform.prefix) == []
    assert _pool() == pool_before


def test_an_nf_port_is_a_vhost_user_socket_the_nf_serves(testbed_factory):
    platform = testbed_factory(datapath="dpdk", vms=0)
    port = platform.add_port("snic0", f"{platform.prefix}n0")
    assert port["backend"] == "dpdk" and port["nf_ifname"].endswith(".vhost")
    ovs = platform.ovs("snic0")
    assert ovs.vsctl("get", "Interface", port["name"], "type") == "dpdkvhostuserclient"
    assert platform.add_port("snic0", port["name"]) == port  # a port already there is reused
    platform.remove_port("snic0", port["name"])
    assert port["name"] not in ovs.vsctl("list-ports", platform.switch("snic0")["bridge"]).split()
