"""Where packets were dropped on the emulated platform, counted by the kernel and by Open vSwitch: the PCIe
links' shapers (tbf drops), each bridge port's receive and transmit drops and errors, each datapath's lost
upcalls and its drops by reason, the kernel's drops at the packet sockets the userspace datapath reads its
ports through, and every other interface in the platform's namespaces (the VMs' and the outside world's ends,
the NFs' ends of their veths: a veth whose peer's backlog is full counts a transmit drop). Part of the per-hop
loss accounting of issue 19; the NFs count their own rings and hold buffers (the agent's /v2.1/uno/losses), and
the endpoints their sockets.

On the DPDK datapath the link has no shaper, and OpenFlow's port counters of a vhost-user port are unknown:
Open vSwitch's own drop counters of each DPDK port (ovs_rx_qos_drops: the link's policer; ovs_tx_failure_drops:
the peer's ring was full; ...) and its drops and errors (tx_dropped: sent while the port could not deliver) are
read from its database, where they are up to 5 seconds old.

Known gap, measured: when the shaper refuses a packet, Open vSwitch's send of a batch (up to 32 packets)
stops there and it frees the rest of the batch without a counter. One tbf drop may hide 31 lost packets:
of a 3,000-packet burst into a 10 Mbit/s link, about 100 were tbf drops and 2,800 vanished this way.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable

from uno_platform import system

_LOST = re.compile(r"lookups: hit:\d+ missed:\d+ lost:(\d+)")
_PORT_STATS = re.compile(r"port\s+(?P<port>\w+): rx pkts=\d+, bytes=\d+, drop=(?P<rx_drop>\d+), errs=(?P<rx_errs>\d+)"
                         r".*?\n\s+tx pkts=\d+, bytes=\d+, drop=(?P<tx_drop>\d+), errs=(?P<tx_errs>\d+)")
_SOCKET_DROPS = re.compile(r"skmem:\([^)]*,d(\d+)\)")
# coverage/show lists each event hit so far as "<name>  <rate>/sec ... total: <n>"
_DROP_EVENTS = re.compile(r"^((?:datapath_drop|drop_action)_\w+)\s.*total: (\d+)$", re.MULTILINE)


def qdisc_drops(netns: str | None, dev: str) -> int:
    """Packets the device's root queueing discipline (the link's shaper) dropped."""
    out = system.run(["tc", "-s", "-j", "qdisc", "show", "dev", dev], netns=netns)
    return sum(int(q.get("drops", 0)) for q in json.loads(out or "[]") if q.get("root"))


def port_drops(openflow: str, ports: dict[int, str]) -> dict[str, dict[str, int]]:
    """Each bridge port's receive/transmit drops and errors as Open vSwitch counts them now (the ovsdb copy is
    refreshed only every few seconds), by port name; `ports` maps OpenFlow port numbers to names."""
    out = system.run(["ovs-ofctl", "-O", "OpenFlow13", "dump-ports", openflow])
    found = {}
    for m in _PORT_STATS.finditer(out):
        if m["port"].isdigit() and int(m["port"]) in ports:
            found[ports[int(m["port"])]] = {"rx_dropped": int(m["rx_drop"]), "rx_errors": int(m["rx_errs"]),
                                            "tx_dropped": int(m["tx_drop"]), "tx_errors": int(m["tx_errs"])}
    return found


def interfaces(ovsdb: str) -> list[tuple[str, int, dict[str, int]]]:
    """Every interface of the switch, the NFs' included: (name, OpenFlow port, the statistics in its database)."""
    out = json.loads(system.run(["ovs-vsctl", f"--db={ovsdb}", "--format=json",
                                 "--columns=name,ofport,statistics", "list", "Interface"]))
    return [(name, ofport, {key: int(n) for key, n in stats[1]}) for name, ofport, stats in out["data"]]


# A vhost-user port's drops and errors, which OpenFlow's port counters leave unknown ("?"): tx_dropped counts what
# Open vSwitch sent to the port while it could not deliver (its peer not connected or its queues not taken up yet)
_DPDK_COUNTERS = ("rx_dropped", "rx_errors", "tx_dropped", "tx_errors")


def dpdk_port_drops(rows: list[tuple[str, int, dict[str, int]]]) -> dict[str, dict[str, int]]:
    """Open vSwitch's drop counters of each DPDK port (ovs_*_drops, and the drops and errors OpenFlow cannot
    show) among `interfaces()`, where any is not zero."""
    found = {}
    for name, _ofport, stats in rows:
        counts = {key: n for key, n in stats.items()
                  if key.startswith("ovs_") and key.endswith("_drops") or key in _DPDK_COUNTERS}
        if any(counts.values()):
            found[name] = counts
    return found


def packet_socket_drops(netns: str | None) -> int:
    """Packets the kernel dropped at the packet sockets in `netns` (the userspace datapath reads its ports through
    them: a full receive buffer drops there, before Open vSwitch sees the packet)."""
    out = system.run(["ss", "-0", "-a", "-m"], netns=netns)
    return sum(int(d) for d in _SOCKET_DROPS.findall(out))


def datapath_lost(appctl: str) -> int:
    """Upcalls the bridge's datapath could not deliver to ovs-vswitchd."""
    out = system.run(["ovs-appctl", "-t", appctl, "dpctl/show"])
    return sum(int(m) for m in _LOST.findall(out))


def datapath_drops(appctl: str) -> dict[str, int]:
    """Packets the bridge's datapath dropped, by Open vSwitch's reason ("drop_action_of_pipeline": the OpenFlow
    tables said drop or matched nothing; "datapath_drop_invalid_port": an output to a port that is gone; ...).
    Only reasons hit so far are listed."""
    out = system.run(["ovs-appctl", "-t", appctl, "coverage/show"])
    return {name: int(n) for name, n in _DROP_EVENTS.findall(out)}


def interface_drops(netns: str | None, skip: set[str]) -> dict[str, dict[str, int]]:
    """The receive/transmit drops and errors of each interface in `netns` but those in `skip`, where any."""
    found = {}
    for link in json.loads(system.run(["ip", "-s", "-j", "link", "show"], netns=netns) or "[]"):
        stats = link.get("stats64", {})
        counts = {f"{way}_{kind}": int(stats.get(way, {}).get(kind, 0))
                  for way in ("rx", "tx") for kind in ("dropped", "errors")}
        if link["ifname"] not in skip and any(counts.values()):
            found[link["ifname"]] = counts
    return found


def places(losses: dict) -> dict[str, int]:
    """A `report()` flattened: each counter by a name that says where ("pcie snic0 host_to_snic",
    "host datapath_lost", "<port> tx_dropped", "<netns>/<ifname> rx_dropped")."""
    found = {f"pcie {snic} {way}": n for snic, link in losses["pcie_shapers"].items() for way, n in link.items()}
    for sw_id, sw in losses["switches"].items():
        found.update({f"{sw_id} {key}": sw[key] for key in ("datapath_lost", "packet_socket_drops")})
        found.update({f"{sw_id} {reason}": n for reason, n in sw["datapath_drops"].items()})
        for ports in (sw["ports"], sw.get("dpdk_ports", {})):
            found.update({f"{port} {key}": n for port, counts in ports.items() for key, n in counts.items()})
    found.update({f"{netns}/{ifname} {key}": n for netns, per_ns in losses["interfaces"].items()
                  for ifname, counts in per_ns.items() for key, n in counts.items()})
    return found


def summary(losses: dict) -> str:
    """The places of a `report()` with a count, in one line ("none" if nowhere)."""
    return ", ".join(f"{place}={n}" for place, n in places(losses).items() if n) or "none"


def total(losses: dict) -> int:
    """Every drop counted in a `report()`."""
    return sum(places(losses).values())


def switch_drops(*, netns: str | None, ovsdb: str, appctl: str, openflow: str, dpdk: bool) -> tuple[dict, set[str]]:
    """One switch's entry of `report`'s "switches", and the names of its bridge ports; netns None: this one."""
    rows = interfaces(ovsdb)
    ports = {ofport: name for name, ofport, _stats in rows if isinstance(ofport, int) and ofport > 0}
    entry = {"datapath_lost": datapath_lost(appctl), "packet_socket_drops": packet_socket_drops(netns),
             "datapath_drops": datapath_drops(appctl), "ports": port_drops(openflow, ports)}
    if dpdk:
        entry["dpdk_ports"] = dpdk_port_drops(rows)
    return entry, set(ports.values())


def machine_drops(*, ovsdb: str, appctl: str, openflow: str, dpdk: bool, pcie_ports: list[str]) -> dict:
    """What a remote sNIC counts on itself (its daemon answers with it): its switch's drops, its PCIe link ends'
    shapers (sNIC to host), and the drops of its other interfaces."""
    switch, bridged = switch_drops(netns=None, ovsdb=ovsdb, appctl=appctl, openflow=openflow, dpdk=dpdk)
    return {"switch": switch, "pcie_shapers": {} if dpdk else {port: qdisc_drops(None, port) for port in pcie_ports},
            "interfaces": interface_drops(None, bridged)}


def report(description: dict, machine: Callable[[dict], dict] | None = None) -> dict:
    """Every counted drop on the platform described by `description`, by place. A remote sNIC (a switch with a
    "machine") counts its own: `machine(switch)` asks it for its `machine_drops`."""
    switches = {sw["id"]: sw for sw in description["switches"]}
    host = switches[next(s for s in switches if switches[s]["role"] == "host")]
    remote = {sw["id"]: machine(sw) for sw in description["switches"] if "machine" in sw}
    out = {"pcie_shapers": {}, "switches": {}, "interfaces": {}}
    shaped = description["spec"].get("datapath", "veth") == "veth"
    for link in description["pcie_links"] if shaped else []:
        snic = switches[link["snic"]]
        out["pcie_shapers"][link["snic"]] = {
            "host_to_snic": qdisc_drops(host["netns"], link["host_port"]),
            "snic_to_host": (remote[snic["id"]]["pcie_shapers"][link["snic_port"]] if snic["id"] in remote
                             else qdisc_drops(snic["netns"], link["snic_port"]))}
    counted: dict[str, set[str]] = {}
    for sw in description["switches"]:
        if sw["id"] in remote:
            out["switches"][sw["id"]] = remote[sw["id"]]["switch"]
            if remote[sw["id"]]["interfaces"]:
                out["interfaces"][sw["netns"]] = remote[sw["id"]]["interfaces"]
            continue
        out["switches"][sw["id"]], counted[sw["netns"]] = switch_drops(
            netns=sw["netns"], ovsdb=sw["ovsdb"], appctl=sw["appctl"], openflow=sw["openflow"], dpdk=not shaped)
    # bridge ports are counted above (Open vSwitch reads the same kernel counters); a remote sNIC's namespace
    # is its own machine's, counted there
    machines = {switches[sw]["netns"] for sw in remote}
    for netns in system.netns_list():
        if netns.startswith(description["prefix"]) and netns not in machines:
            found = interface_drops(netns, counted.get(netns, set()))
            if found:
                out["interfaces"][netns] = found
    return out
