"""The emulated platform's DPDK datapath: what differs from veth, in one place.

- Each switch is Debian's DPDK build of ovs-vswitchd (an alternative the package installs
  beside the plain one, which stays the default). Its EAL never probes PCI (--no-pci) and
  keeps its memory to itself (--in-memory: no files under /dev/hugepages or /var/run/dpdk,
  so several instances and the NFs cannot collide); --single-file-segments keeps the memory
  a vhost-user peer maps to a few regions.
- Its poll-mode thread sleeps when idle (pmd-maxsleep), so that two switches and several NFs
  share two cores; each switch polls on its own core where there are enough.
- The PCIe link is a shared-memory pair: the host's port serves a vhost-user socket
  (dpdkvhostuser), the sNIC's is a virtio-user device on it. tc does not apply there, so
  the link's rate is an ingress policer on each end.
- An NF port is a dpdkvhostuserclient port: the NF (netio's dpdk provider) serves the
  socket, so a switch restart does not take the NF's port with it.
- VM and wire ports stay veth: the switch reads them through the kernel, as before.
"""
from __future__ import annotations

import os
import pathlib
import re

VSWITCHD = "/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk"
EAL_EXTRA = "--no-pci --in-memory --single-file-segments --no-telemetry"
PMD_MAXSLEEP_US = 500
SOCKET_MEM_MB = 64            # preallocated at start
SOCKET_LIMIT_MB = 384         # the most one switch may take; OVS sizes its mbuf pools to fit
NF_PAGES = 32                 # an NF with one port takes about 25 pages of 2 MiB
NF_ROOM = 8                   # NFs the reservation leaves room for, per switch
VIRTIO_QUEUE = 4096


def available() -> str | None:
    """Why the DPDK datapath cannot run here, in one line, or None."""
    if not os.access(VSWITCHD, os.X_OK):
        return f"{VSWITCHD} is missing (Debian package openvswitch-switch-dpdk)"
    return None


def hugepages(switches: int) -> int:
    """Pages of 2 MiB a testbed of `switches` switches reserves for them and their NFs."""
    return switches * (SOCKET_LIMIT_MB // 2 + NF_ROOM * NF_PAGES)


def pmd_core(index: int) -> int:
    """The core switch number `index` polls on: one each, while there are enough."""
    return index % (os.cpu_count() or 1)


def other_config(index: int) -> list[str]:
    """`ovs-vsctl set Open_vSwitch .` settings, written before ovs-vswitchd starts."""
    return ["other_config:dpdk-init=true", f"other_config:dpdk-extra={EAL_EXTRA}",
            f"other_config:dpdk-socket-mem={SOCKET_MEM_MB}", f"other_config:dpdk-socket-limit={SOCKET_LIMIT_MB}",
            f"other_config:pmd-cpu-mask={1 << pmd_core(index):#x}",
            f"other_config:pmd-maxsleep={PMD_MAXSLEEP_US}"]


def _policer(gbps: float) -> list[str]:
    kbps = int(gbps * 1e6)
    return [f"ingress_policing_rate={kbps}", f"ingress_policing_burst={max(kbps // 1000, 256)}"]


def pcie_host_interface(gbps: float, mtu: int) -> list[str]:
    """The host's end of the link: a vhost-user server, its socket in the switch's run directory."""
    return ["type=dpdkvhostuser", f"mtu_request={mtu}", *_policer(gbps)]


def pcie_snic_interface(host_socket: pathlib.Path, index: int, gbps: float, mtu: int) -> list[str]:
    """The sNIC's end: a virtio-user device on the host's socket."""
    devargs = f"net_virtio_user{index},path={host_socket},queue_size={VIRTIO_QUEUE}"
    # Open vSwitch posts 2,048 receive buffers on a DPDK port unless told: the ring would hold only those.
    return ["type=dpdk", f"options:dpdk-devargs={devargs}", f"options:n_rxq_desc={VIRTIO_QUEUE}",
            f"options:n_txq_desc={VIRTIO_QUEUE}", f"mtu_request={mtu}", *_policer(gbps)]


def nf_socket(rundir: str | pathlib.Path, port: str) -> pathlib.Path:
    return pathlib.Path(rundir) / f"{port}.vhost"


def nf_interface(socket: pathlib.Path) -> list[str]:
    return ["type=dpdkvhostuserclient", f"options:vhost-server-path={socket}"]


def queue_enabled(rxq_show: str, port: str) -> bool:
    """Whether `ovs-appctl dpif-netdev/pmd-rxq-show` says a poll-mode thread polls `port`'s queue 0, enabled:
    lines like "  port: uno-n0   queue-id:  0 (enabled)   pmd usage: ...". A vhost-user port is listed
    once the datapath has taken it up after its connection."""
    return re.search(rf"^\s*port: {re.escape(port)}\s+queue-id:\s+0 \(enabled\)", rxq_show, re.MULTILINE) is not None
