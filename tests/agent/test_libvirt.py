"""The agent's libvirt launcher with a real libvirtd (LXC driver) that the test starts and stops."""
from __future__ import annotations

import pathlib
import subprocess
import time

import pytest

from uno_harness.processes import Proc, wait_for
from uno_nfs import NfControl
from uno_platform import system
from uno_platform.traffic import ping

pytestmark = pytest.mark.platform


@pytest.fixture
def libvirtd(tmp_path):
    """libvirtd in a private mount namespace without the cgroup v2 mount (its LXC driver needs v1 only)."""
    run = tmp_path / "libvirt"
    run.mkdir()
    conf = tmp_path / "libvirtd.conf"
    conf.write_text(f'unix_sock_dir = "{run}"\nauth_unix_rw = "none"\n'
                    f'log_outputs = "3:file:{tmp_path}/libvirtd.log"\n')
    proc = Proc("libvirtd", ["unshare", "-m", "--propagation", "private", "sh", "-c",
                             f"umount /sys/fs/cgroup/unified 2>/dev/null; exec libvirtd -f {conf}"],
                tmp_path / "libvirtd.out")
    uri = f"lxc:///system?socket={run}/libvirt-sock"
    wait_for(lambda: proc.alive() and (run / "libvirt-sock").exists(), 30, "libvirtd to listen")
    yield uri
    for name in virsh(uri, "list", "--name").split():
        virsh(uri, "destroy", name)
    proc.stop()


def virsh(uri: str, *args: str) -> str:
    return subprocess.run(["virsh", "-q", "-c", uri, *args], capture_output=True, text=True, timeout=60).stdout


def init_pid(uri: str, domain: str) -> int:
    controller = int(virsh(uri, "domid", domain).strip())
    return int(pathlib.Path(f"/proc/{controller}/task/{controller}/children").read_text().split()[0])


def test_vm_and_nf_as_libvirt_domains_forward_traffic(uno_stack, libvirtd):
    stack = uno_stack(agent_config={"launcher": "libvirt", "libvirt_uri": libvirtd},
                      snic_cores=1.0, vms=0, wire_ports=1)
    vm = stack.create("vm0", "vm.small")
    nf = stack.create("mon", "monitor", **{"uno:expected_gbps": 0.1})
    prefix = stack.platform.prefix
    domains = sorted(virsh(libvirtd, "list", "--name").split())
    assert domains == sorted(f"{prefix}{s['id'][:8]}-0" for s in (vm, nf))

    # The NF runs in its domain, placed on the sNIC, counted in the sNIC's cgroup.
    assert nf["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "snic0"
    nf_pid = init_pid(libvirtd, f"{prefix}{nf['id'][:8]}-0")
    cgroup = stack.platform.switch("snic0")["cgroup"]["cpuacct"]
    assert str(nf_pid) in pathlib.Path(cgroup, "cgroup.procs").read_text().split()
    with NfControl(stack.control_socket(nf["id"])) as ctl:
        assert ctl.ping()

    # VM -> monitor -> wire, steered by the controller with virtual ports only.
    wire = stack.platform.description["ext"]["interfaces"][0]
    stack.set_chains([stack.chain("c1", vm, [nf], wire["port"])])
    vm_pid = init_pid(libvirtd, f"{prefix}{vm['id'][:8]}-0")
    ext_ip = wire["ip"].split("/")[0]

    def vm_pings() -> bool:
        return subprocess.run(["nsenter", "-t", str(vm_pid), "-n", "ping", "-c", "1", "-W", "1", ext_ip],
                              capture_output=True).returncode == 0
    wait_for(vm_pings, 30, "the VM domain to reach the outside through the NF domain")
    with NfControl(stack.control_socket(nf["id"])) as ctl:
        assert ctl.stats()["processed"] > 0

    for server in (nf, vm):
        stack.api("DELETE", f"/v2.1/servers/{server['id']}", expect=204)
    assert virsh(libvirtd, "list", "--name").split() == []
    assert not system.link_exists(f"{prefix}n0", stack.platform.switch("snic0")["netns"])
    time.sleep(0.1)
    assert not ping(stack.platform.description["ext"]["netns"], vm["addresses"]["tenant"][0]["addr"], count=1)
