"""Instances as libvirt LXC domains: the launcher for hosts that manage workloads with libvirt.

Each VM or NF is a transient LXC domain sharing the host's filesystem (so the NF
binary, its config and its control socket are where the agent expects them)
with one veth interface: libvirt creates the host end under the port's name in
the root namespace, and the launcher moves it onto the side's switch. The
domain's init process is then counted against the side's CPU budget (the sNIC
quota applies to NFs placed there).
"""
from __future__ import annotations

import logging
import pathlib
import shlex
import xml.etree.ElementTree as ET

from uno_agent.launcher import Instance, Launcher, LaunchError, platform_call
from uno_platform import system
from uno_platform.base import Platform
from uno_platform.emulated import VM_SUBNET, vm_mac
from uno_platform.errors import PlatformError

log = logging.getLogger(__name__)
MEMORY_MIB = 256


class LibvirtLauncher(Launcher):
    def __init__(self, platform: Platform, bin_dir: pathlib.Path, run_dir: pathlib.Path, uri: str):
        super().__init__(platform, bin_dir, run_dir)
        self.uri = uri

    def _virsh(self, *args: str, check: bool = True) -> str:
        try:
            return system.run(["virsh", "-q", "-c", self.uri, *args], check=check).strip()
        except PlatformError as exc:
            raise LaunchError(f"libvirt: {exc}") from None

    def domain_name(self, instance_id: str) -> str:
        """<prefix><first 8 hex of the server id>-<generation>: unique per instance, short to read."""
        server_id, _, generation = instance_id.rpartition("-")
        return f"{self.platform.prefix}{server_id[:8]}-{generation}"

    def _create(self, instance_id: str, port: str, command: str, mac: str | None) -> int:
        """Start the domain; returns the pid of its init process."""
        xml_path = self.run_dir / f"{instance_id}.xml"
        xml_path.write_text(domain_xml(self.domain_name(instance_id), command, port, mac))
        self._virsh("create", str(xml_path))
        controller = int(self._virsh("domid", self.domain_name(instance_id)))
        children = pathlib.Path(f"/proc/{controller}/task/{controller}/children").read_text().split()
        if not children:
            raise LaunchError(f"domain {self.domain_name(instance_id)} has no init process")
        return int(children[0])

    def _guest_link_up(self, pid: int) -> None:
        for argv in (["ethtool", "-K", "eth0", "tx", "off"], ["ip", "link", "set", "eth0", "up"]):
            system.run(["nsenter", "-t", str(pid), "-n", *argv])

    def start_nf(self, instance_id: str, binary: str, side: str, port: str,
                 config_text: str | None, *, hold_packets: int | None = None) -> Instance:
        argv = self.nf_argv(instance_id, binary, "eth0", config_text, hold_packets)
        command = f"exec {shlex.join(argv)} >> {shlex.quote(str(self.log_path(instance_id)))} 2>&1"
        pid = self._create(instance_id, port, command, None)
        try:
            platform_call(self.platform.plug_interface, side, port)
            self._guest_link_up(pid)
            platform_call(self.platform.adopt_process, side, pid)
            self.wait_ready(instance_id, f"{binary} in domain {self.domain_name(instance_id)}",
                            lambda: not system.is_alive(pid, None))
        except BaseException:
            self.stop(instance_id, "nf", side, port, pid, None)
            raise
        log.info("started NF %s (%s) on %s as libvirt domain %s", instance_id, binary, side,
                 self.domain_name(instance_id))
        return Instance(pid=pid, pid_start=system.start_time(pid), port=port,
                        control=str(self.control_path(instance_id)))

    def start_vm(self, instance_id: str, index: int) -> Instance:
        port, mac, ip = f"{self.platform.prefix}vm{index}", vm_mac(index), VM_SUBNET.format(1 + index)
        pid = self._create(instance_id, port, "exec sleep infinity", mac)
        try:
            platform_call(self.platform.plug_interface, "host", port)
            self._guest_link_up(pid)
            system.run(["nsenter", "-t", str(pid), "-n", "ip", "addr", "add", ip, "dev", "eth0"])
        except BaseException:
            self.stop(instance_id, "vm", "host", port, pid, None)
            raise
        return Instance(pid=pid, pid_start=system.start_time(pid), port=port, ip=ip, mac=mac)

    def stop(self, instance_id: str, kind: str, side: str | None, port: str | None,
             pid: int | None, pid_start: int | None, *, keep_port: bool = False) -> None:
        # a domain's tap interface goes with the domain: there is no port to keep
        self._virsh("destroy", self.domain_name(instance_id), check=False)
        if side and port:
            self.remove_port(side, port)

    def alive(self, instance_id: str, kind: str, pid: int | None, pid_start: int | None,
              netns: str | None, *, side: str | None = None) -> bool:
        return pid is not None and system.is_alive(pid, pid_start)


def domain_xml(name: str, command: str, port: str, mac: str | None) -> str:
    """A transient LXC domain running `command` under /bin/sh with one veth named `port`."""
    domain = ET.Element("domain", type="lxc")
    ET.SubElement(domain, "name").text = name
    ET.SubElement(domain, "memory", unit="MiB").text = str(MEMORY_MIB)
    ET.SubElement(domain, "vcpu").text = "1"
    os_ = ET.SubElement(domain, "os")
    ET.SubElement(os_, "type").text = "exe"
    ET.SubElement(os_, "init").text = "/bin/sh"
    for arg in ("-c", command):
        ET.SubElement(os_, "initarg").text = arg
    devices = ET.SubElement(domain, "devices")
    ET.SubElement(devices, "console", type="pty")
    interface = ET.SubElement(devices, "interface", type="ethernet")
    ET.SubElement(interface, "target", dev=port)
    ET.SubElement(interface, "guest", dev="eth0")
    if mac:
        ET.SubElement(interface, "mac", address=mac)
    return ET.tostring(domain, encoding="unicode")
