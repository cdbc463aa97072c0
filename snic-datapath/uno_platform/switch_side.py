"""One side of the platform as seen from its own machine: its switch, namespace and CPU budget, and the ports
and processes of the NFs that run there.

The emulated platform drives every side from the host (`netns` names the side's namespace); the sNIC daemon
drives its own side from inside it (`netns` is None). This module and what it imports use the standard
library only: the sNIC daemon runs it with the sNIC's own Python.
"""
from __future__ import annotations

import pathlib
import subprocess
from typing import TYPE_CHECKING

from uno_platform import dpdk, system
from uno_platform.cgroups import SideCgroup, preexec_join
from uno_platform.errors import PlatformError, SpecError
from uno_platform.ovs import OvsInstance
from uno_platform.spec import IFNAME_MAX

if TYPE_CHECKING:   # port_pool uses this module's ip()
    from uno_platform.port_pool import PortPool


def ip(netns: str | None) -> list[str]:
    """The start of an `ip` command acting in `netns` (None: the namespace this process is in)."""
    return ["ip", "-n", netns] if netns else ["ip"]


def make_veth(a: str, a_ns: str | None, b: str, b_ns: str | None, *, b_mac: str | None = None,
              mtu: int | None = None) -> None:
    """A veth pair with each end created directly in its namespace, up, tx checksum offload off."""
    peer = ["peer", "name", b] + (["address", b_mac] if b_mac else []) + (["netns", b_ns] if b_ns else [])
    system.run([*ip(None), "link", "add", "name", a, *(["netns", a_ns] if a_ns else []), "type", "veth", *peer])
    for name, ns in ((a, a_ns), (b, b_ns)):
        if mtu:
            system.run([*ip(ns), "link", "set", name, "mtu", str(mtu)])
        system.run(["ethtool", "-K", name, "tx", "off"], netns=ns)
        system.run([*ip(ns), "link", "set", name, "up"])


def nf_peer_name(port: str) -> str:
    """The NF's end of an NF port's veth pair."""
    return port + "x"


class SwitchSide:
    """A switch (`bridge` of `ovs`) in namespace `netns`, whose processes run in `cgroup`; its NF ports are veth
    pairs it makes, or with `pool` pairs made beforehand (a BlueField's SFs)."""

    def __init__(self, ovs: OvsInstance, bridge: str, netns: str | None, cgroup: SideCgroup, datapath: str,
                 pool: PortPool | None = None):
        self.ovs, self.bridge, self.netns, self.cgroup, self.datapath = ovs, bridge, netns, cgroup, datapath
        self.pool = pool

    def add_port(self, name: str) -> dict:
        """A port for an NF: on veth, a veth pair in the side's namespace (or a pair of the pool, renamed), `name`
        on the bridge and `name`+"x" for the NF; on DPDK, a vhost-user port whose socket the NF serves
        ("nf_ifname" is then the socket's path, and "backend" says which packet I/O the NF opens it with).

        A whole port of that name already there (one kept for an NF's return) is reused as it is: adding or
        deleting a bridge port stalls the userspace datapath's forwarding for 3-20 ms, reusing one does not."""
        if self.datapath == "dpdk":
            return self._add_vhost_port(name)
        nf_ifname = nf_peer_name(name)
        if len(nf_ifname) > IFNAME_MAX:
            raise SpecError(f"port name {name!r} is too long: {nf_ifname!r} exceeds {IFNAME_MAX} characters")
        if system.link_exists(nf_ifname, self.netns) and name in self.ovs.vsctl("list-ports", self.bridge).split():
            return {"name": name, "ofport": self.ovs.ofport(name), "netns": self.netns, "nf_ifname": nf_ifname}
        try:
            if self.pool is not None:
                self.pool.take(name, nf_ifname)
            else:
                make_veth(name, self.netns, nf_ifname, self.netns)
            ofport = self.plug(name)
        except PlatformError:
            self.remove_port(name)
            raise
        return {"name": name, "ofport": ofport, "netns": self.netns, "nf_ifname": nf_ifname}

    def _add_vhost_port(self, name: str) -> dict:
        socket = dpdk.nf_socket(self.ovs.rundir, name)
        if name not in self.ovs.vsctl("list-ports", self.bridge).split():
            try:
                self.ovs.vsctl("add-port", self.bridge, name, "--", "set", "Interface", name,
                               *dpdk.nf_interface(socket))
            except PlatformError:
                self.remove_port(name)
                raise
        return {"name": name, "ofport": self.ovs.ofport(name), "netns": self.netns, "nf_ifname": str(socket),
                "backend": "dpdk"}

    def plug(self, name: str) -> int:
        """Add interface `name` (already in the namespace) to the bridge; its ofport."""
        self.ovs.vsctl("add-port", self.bridge, name)
        return self.ovs.ofport(name)

    def remove_port(self, name: str) -> None:
        self.ovs.vsctl("--if-exists", "del-port", self.bridge, name)
        if self.datapath == "dpdk":
            dpdk.nf_socket(self.ovs.rundir, name).unlink(missing_ok=True)
        if self.pool is not None and self.pool.give_back(name, nf_peer_name(name)):
            return
        if system.link_exists(name, self.netns):
            system.run([*ip(self.netns), "link", "del", name])

    def port_up(self, name: str) -> bool:
        if self.datapath != "dpdk":
            return True  # a veth is up once added
        # The datapath polls a vhost-user port's queue once it has reconfigured the port after the connection,
        # and sends to it from then on (before, Open vSwitch counts what it sends there in tx_dropped).
        return dpdk.queue_enabled(self.ovs.appctl("dpif-netdev/pmd-rxq-show"), name)

    def port_backlog(self, name: str) -> int:
        if self.datapath == "dpdk":
            # The switch's poll-mode thread reads a vhost-user port's ring within its longest sleep
            # (dpdk.PMD_MAXSLEEP_US); no kernel queue holds packets for it.
            return 0
        # The userspace datapath reads a system port through a packet socket bound to it: its receive queue.
        # Read from /proc rather than with `ss` (a process costs milliseconds, and migrated packets wait for
        # this): the daemon runs in the switch's namespaces, so its /proc/PID/net is the namespace's and the
        # /sys under its root names the namespace's interfaces.
        try:
            proc = pathlib.Path("/proc", str(self.ovs.pid("ovs-vswitchd")))
            ifindex = (proc / "root/sys/class/net" / name / "ifindex").read_text().strip()
            sockets = (proc / "net/packet").read_text().splitlines()[1:]
        except (OSError, ValueError):
            return 0  # the port (or the switch) is gone: nothing of it will be read
        # columns: sk RefCnt Type Proto Iface R Rmem User Inode
        return sum(int(f[6]) for f in (line.split() for line in sockets) if len(f) >= 7 and f[4] == ifindex)

    def spawn(self, argv: list[str], **popen_kwargs) -> subprocess.Popen:
        """Start a process on this side: in its namespace and cgroup."""
        return subprocess.Popen([*(["ip", "netns", "exec", self.netns] if self.netns else []), *argv],
                                preexec_fn=preexec_join(self.cgroup), **popen_kwargs)
