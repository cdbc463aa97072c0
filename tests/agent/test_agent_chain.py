"""A service chain of NFs placed by the agent carries traffic end to end (issue 6), which needs
OneSwitch's flow-id tags: the chain crosses the PCIe link several times."""
from __future__ import annotations

import re

import pytest
from test_agent import PLATFORM, build_chain, chain_of, nf_pids, same_netns, vm_netns

from uno_harness.agent import PROFILES
from uno_harness.processes import wait_for
from uno_platform import system
from uno_platform.traffic import ping, tcp_echo

pytestmark = pytest.mark.platform


@pytest.mark.parametrize("profile", PROFILES)
def test_vms_and_a_chain_of_nfs_are_placed_launched_and_carry_traffic(uno_stack, profile):
    stack = uno_stack(profile=profile, **PLATFORM)
    vms, nfs = build_chain(stack)

    # Each NF landed where the solver put it: the first monitor fills the sNIC, the second goes to
    # the host, the firewall fits beside the first on the sNIC.
    assert [nf["OS-EXT-SRV-ATTR:hypervisor_hostname"] for nf in nfs] == ["snic0", "host", "snic0"]
    assert all(vm["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "host" for vm in vms)
    # ... and really runs there: its process is in that switch's namespace.
    for nf in nfs:
        with stack.nf_control(nf["id"]) as ctl:
            assert ctl.ping()
    for nf, binary in zip(nfs, ("monitor", "monitor", "l2fw"), strict=True):
        side = stack.platform.switch(nf["OS-EXT-SRV-ATTR:hypervisor_hostname"])
        pids = nf_pids(stack, binary, nf)
        assert len(pids) == 1 and same_netns(pids[0], side["netns"])

    # The API names only virtual ports; every one reached the controller as a PORT_STATUS.
    vports = [s["ports"][0]["virtual_port"] for s in vms + nfs]
    assert len(set(vports)) == 5
    log = stack.osken.log.read_text()
    for vport in vports:
        assert re.search(rf"port status: reason 0 port {vport} ", log), f"no PORT_STATUS ADD for {vport}"
    for server in vms + nfs:
        assert "port" not in server and set(server["ports"][0]) == {"virtual_port"}

    # A chain VM -> mon1 -> mon2 -> fw1 -> wire, written by the controller with virtual ports only.
    stack.set_chains([chain_of(stack, vms[0], nfs)])
    ext_ip = stack.platform.description["ext"]["interfaces"][0]["ip"].split("/")[0]
    source = vm_netns(stack, vms[0])
    # The firewall drops what is not IP (its --unparsed policy), ARP included: static neighbours.
    ext = stack.platform.description["ext"]
    vm_addr = vms[0]["addresses"]["tenant"][0]
    system.run(["ip", "-n", source, "neigh", "replace", ext_ip, "lladdr", ext["interfaces"][0]["mac"],
                "dev", "eth0", "nud", "permanent"])
    system.run(["ip", "-n", ext["netns"], "neigh", "replace", vm_addr["addr"], "lladdr",
                vm_addr["OS-EXT-IPS-MAC:mac_addr"], "dev", ext["interfaces"][0]["ifname"], "nud", "permanent"])
    wait_for(lambda: ping(source, ext_ip, count=1), 20, "the chain to forward")
    assert ping(source, ext_ip)
    sent, received = tcp_echo(source, stack.platform.description["ext"]["netns"], ext_ip, nbytes=512 << 10)
    assert sent == received
    # every NF of the chain saw the traffic
    for nf in nfs:
        with stack.nf_control(nf["id"]) as ctl:
            assert ctl.stats()["processed"] > 100, nf["name"]
