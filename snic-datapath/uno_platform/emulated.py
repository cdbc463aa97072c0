"""The emulated platform: a host and k smart NICs made of real OVS instances, veth and cgroups.

`up` builds it step by step, recording every object in a ledger before creating it;
if any step fails, everything recorded is removed again and the error is raised.
`down` undoes the ledger and then sweeps by name, so it also cleans up after a
crash that lost the ledger.
"""
from __future__ import annotations

import logging
import os
import pathlib
import shutil
import subprocess

from uno_platform import dpdk, hugepages, pki, system
from uno_platform import losses as drops
from uno_platform.base import Platform, write_description
from uno_platform.cgroups import HOST_GUARANTEED_CORES, SideCgroup, check_available, existing_names
from uno_platform.errors import PlatformError, SpecError
from uno_platform.ledger import Ledger
from uno_platform.ovs import DAEMONS, OvsInstance
from uno_platform.spec import IFNAME_MAX, SNIC_MODELS, Names, TestbedSpec, datapath_id, parse_controller
from uno_platform.switch_side import SwitchSide, make_veth

log = logging.getLogger(__name__)

VM_SUBNET = "10.0.0.{}/24"     # VMs from .1 up, ext interfaces from .254 down
MAX_VM_INDEX = 200
NETNS_SYSCTLS = (
    # no IPv6: router solicitations and MLD reports would show up in the switches' counters
    "net.ipv6.conf.all.disable_ipv6=1",
    "net.ipv6.conf.default.disable_ipv6=1",
    # several ext interfaces share one subnet: answer ARP only for the interface's own address
    "net.ipv4.conf.all.arp_ignore=1",
    "net.ipv4.conf.all.arp_announce=2",
)
TBF_LATENCY = "20ms"
SSL_RELAY_PORT = 6653          # on each bridge namespace's loopback, for an ssl: controller


def vm_mac(j: int) -> str:
    return f"02:00:00:00:01:{j:02x}"


def ext_mac(n: int) -> str:
    return f"02:00:00:00:02:{n:02x}"


def make_netns(name: str) -> None:
    system.run(["ip", "netns", "add", name])
    system.run(["ip", "-n", name, "link", "set", "lo", "up"])
    system.run(["sysctl", "-q", "-w", *NETNS_SYSCTLS], netns=name)


def _configure_vm(vm_ns: str, port: str, index: int) -> dict:
    ip = VM_SUBNET.format(1 + index)
    system.run(["ip", "-n", vm_ns, "addr", "add", ip, "dev", "eth0"])
    return {"id": f"vm{index}", "netns": vm_ns, "ifname": "eth0", "mac": vm_mac(index), "ip": ip,
            "switch": "host", "port": port}


class EmulatedPlatform(Platform):
    """The default profile: everything in network namespaces on this machine."""

    profile = "emulated"

    @classmethod
    def up(cls, spec: TestbedSpec) -> EmulatedPlatform:
        spec.validate()
        check_available()
        names = Names(spec.prefix)
        _check_prefix_free(spec, names)
        state = pathlib.Path(spec.state_dir) / spec.prefix
        state.parent.mkdir(parents=True, exist_ok=True)
        try:
            state.mkdir()
        except FileExistsError:
            raise SpecError(f"prefix {spec.prefix!r} is already in use ({state} exists)") from None
        ledger = Ledger(state)
        ledger.record("dir", path=str(state))
        try:
            description = cls._builder()(spec, names, state, ledger).build()
            write_description(description, state)
        except BaseException as exc:
            problems = _undo(ledger.entries())
            for problem in problems:
                log.error("clean-up after failed up: %s", problem)
            if isinstance(exc, PlatformError):
                raise
            raise PlatformError(f"testbed up failed: {exc!r}") from exc
        log.info("testbed %s is up", spec.prefix)
        return cls(description)

    @classmethod
    def _builder(cls) -> type[_Builder]:
        return _Builder

    @classmethod
    def down(cls, prefix: str, state_dir: str) -> list[str]:
        state = pathlib.Path(state_dir) / prefix
        problems = _undo(Ledger(state).entries())
        problems += _undo(_sweep_entries(prefix, state))
        return problems

    # -- runtime -------------------------------------------------------------------------

    def ovs(self, switch_id: str) -> OvsInstance:
        sw = self.switch(switch_id)
        return OvsInstance(sw["rundir"], sw["netns"])

    def cgroup(self, switch_id: str) -> SideCgroup:
        cg = self.switch(switch_id)["cgroup"]
        return SideCgroup(cg["cpu"], cg["cpuacct"])

    @property
    def datapath(self) -> str:
        return self.description["spec"].get("datapath", "veth")

    def vsctl(self, switch_id: str, *args: str) -> str:
        """ovs-vsctl against a switch's database."""
        return self.ovs(switch_id).vsctl(*args)

    def side(self, switch_id: str) -> SwitchSide:
        sw = self.switch(switch_id)
        return SwitchSide(self.ovs(switch_id), sw["bridge"], sw["netns"], self.cgroup(switch_id), self.datapath)

    def add_port(self, switch_id: str, name: str) -> dict:
        return self.side(switch_id).add_port(name)

    def plug_interface(self, switch_id: str, ifname: str) -> int:
        netns = self.switch(switch_id)["netns"]
        if netns is not None:       # (None: the switch is in this machine's own namespace, as the interface is)
            system.run(["ip", "link", "set", ifname, "netns", netns])
        try:
            system.run(["ethtool", "-K", ifname, "tx", "off"], netns=netns)
            system.run(["ip", *(["-n", netns] if netns else []), "link", "set", ifname, "up"])
            return self.side(switch_id).plug(ifname)
        except PlatformError:
            self.remove_port(switch_id, ifname)
            raise

    def remove_port(self, switch_id: str, name: str) -> None:
        self.side(switch_id).remove_port(name)

    def port_up(self, switch_id: str, name: str) -> bool:
        return self.side(switch_id).port_up(name)

    def port_backlog(self, switch_id: str, name: str) -> int:
        return self.side(switch_id).port_backlog(name)

    def add_vm(self, index: int) -> dict:
        """A VM namespace `<prefix>vm<index>` plugged into the host switch, like those of `up`.

        Returns the VM's entry (as in the description's "vms") with its "ofport".
        """
        if not 0 <= index < MAX_VM_INDEX:
            raise SpecError(f"VM index must be 0-{MAX_VM_INDEX - 1}, not {index}")
        names = Names(self.prefix)
        vm_ns, port = names.vm_netns(index), names.vm_port(index)
        if len(port) > IFNAME_MAX:
            raise SpecError(f"VM port name {port!r} exceeds {IFNAME_MAX} characters")
        if vm_ns in system.netns_list():
            raise SpecError(f"VM namespace {vm_ns} already exists")
        try:
            make_netns(vm_ns)
            make_veth(port, self.switch("host")["netns"], "eth0", vm_ns, b_mac=vm_mac(index))
            vm = _configure_vm(vm_ns, port, index)
            return {**vm, "ofport": self.side("host").plug(port)}
        except PlatformError:
            self.remove_vm(index)
            raise

    def remove_vm(self, index: int) -> None:
        names = Names(self.prefix)
        self.remove_port("host", names.vm_port(index))
        _undo_netns({"name": names.vm_netns(index)})

    def spawn(self, switch_id: str, argv: list[str], **popen_kwargs) -> subprocess.Popen:
        return self.side(switch_id).spawn(argv, **popen_kwargs)

    def adopt_process(self, switch_id: str, pid: int) -> None:
        self.cgroup(switch_id).join(pid)

    def cpu_seconds(self) -> dict[str, float]:
        return {sw["id"]: self.cgroup(sw["id"]).usage_seconds() for sw in self.description["switches"]}

    def status(self, losses: bool = False) -> dict:
        switches = {sw["id"]: self._switch_status(sw) for sw in self.description["switches"]}
        healthy = all(s["netns_present"] and all(s["daemons"].values()) for s in switches.values())
        return {"prefix": self.prefix, "profile": self.profile, "healthy": healthy,
                "controller": self.description.get("controller"), "switches": switches,
                "losses": self._loss_report() if losses and healthy else None}

    def _loss_report(self) -> dict:
        return drops.report(self.description)

    def _switch_status(self, sw: dict) -> dict:
        ovs = self.ovs(sw["id"])
        daemons = {}
        for daemon in DAEMONS:
            try:
                pid = ovs.pid(daemon)
            except (OSError, ValueError):
                pid = None
            daemons[daemon] = pid is not None and system.is_alive(pid, None)
        cgroup = self.cgroup(sw["id"])
        return {"bridge": sw["bridge"], "netns": sw["netns"], "daemons": daemons,
                "netns_present": sw["netns"] is None or sw["netns"] in system.netns_list(),
                "cpu_seconds": round(cgroup.usage_seconds(), 3), "cpu_quota_cores": cgroup.quota_cores(),
                "ports": {p["name"]: p["ofport"] for p in sw["ports"]}}


def shaper_queue_packets(mtu: int) -> int:
    """How many packets a PCIe shaper queues: fewer than fit in a packet socket's default send buffer
    (net.core.wmem_default), to which Open vSwitch's queued packets are charged until the shaper sends them."""
    wmem = int(pathlib.Path("/proc/sys/net/core/wmem_default").read_text())
    data = 1 << (mtu + 14 + 64 - 1).bit_length()       # the frame's buffer, rounded up as the allocator does
    truesize = data + 1024                               # with the skb and its shared info (generous)
    return max(8, wmem // truesize - 1)


def _check_prefix_free(spec: TestbedSpec, names: Names) -> None:
    existing = set(system.netns_list())
    taken = [ns for ns in names.namespaces(spec) if ns in existing]
    if taken:
        raise SpecError(f"prefix {spec.prefix!r} is already in use (namespace {taken[0]} exists)")
    for sw in ["host"] + [Names.snic(i) for i in range(spec.snics)]:
        cgroup = SideCgroup.for_name(names.cgroup(sw))
        if any(p.exists() for p in cgroup.paths):
            raise SpecError(f"prefix {spec.prefix!r} is already in use (cgroup {cgroup.cpu} exists)")


class _Builder:
    """The steps of `up`, each recording what it creates before creating it."""

    def __init__(self, spec: TestbedSpec, names: Names, state: pathlib.Path, ledger: Ledger):
        self.spec, self.names, self.state, self.ledger = spec, names, state, ledger
        self.switch_ids = ["host"] + [Names.snic(i) for i in range(spec.snics)]
        self.ovs: dict[str, OvsInstance] = {}
        self.cgroups: dict[str, SideCgroup] = {}
        self.ports: dict[str, list[dict]] = {sw: [] for sw in self.switch_ids}
        self.vms: list[dict] = []
        self.ext: list[dict] = []
        self.links: list[dict] = []
        self.pki: pki.Pki | None = None
        self.dpdk = spec.datapath == "dpdk"

    def build(self) -> dict:
        self._cgroups()
        self._namespaces()
        if self.dpdk:
            self._hugepages()
        self._switches()
        self._pcie_links()
        self._wire_ports()
        self._vms()
        if self.spec.controller:
            self._controller()
        self._read_ofports()
        return self._description()

    def _cgroups(self) -> None:
        for sw in self.switch_ids:
            cgroup = SideCgroup.for_name(self.names.cgroup(sw))
            self.ledger.record("cgroup", cpu=str(cgroup.cpu), cpuacct=str(cgroup.cpuacct))
            if sw == "host":
                cgroup.create(None, guaranteed=HOST_GUARANTEED_CORES)
            else:
                cgroup.create(self.spec.snic_cores)
            self.cgroups[sw] = cgroup

    def _namespaces(self) -> None:
        for ns in self.names.namespaces(self.spec, vms=False):
            self.ledger.record("netns", name=ns)
            make_netns(ns)

    def _host_pid(self, sw: str, pid: int) -> int:
        """This machine's pid of a process `sw`'s side numbers `pid` (the same here: one PID namespace)."""
        return pid

    def _hugepages(self) -> None:
        reason = dpdk.available()
        if reason:
            raise PlatformError(f"the dpdk datapath cannot run: {reason}")
        added = hugepages.reserve(dpdk.hugepages(len(self.switch_ids)))
        self.ledger.record("hugepages", pages=added)

    def _switches(self) -> None:
        for index, sw in enumerate(self.switch_ids):
            ovs = self._ovs_instance(sw)

            def started(daemon: str, pid: int, sw: str = sw) -> None:
                pid = self._host_pid(sw, pid)
                self.ledger.record("process", name=f"{sw}/{daemon}", pid=pid,
                                   start=system.start_time(pid), group=False)

            ovs.start(self.cgroups[sw], started, dpdk_index=index if self.dpdk else None,
                      db_options=self._db_options(sw))
            ovs.vsctl("set", "Open_vSwitch", ".", "other_config:vlan-limit=2")
            bridge = self.names.switch_bridge(sw)
            ovs.vsctl("add-br", bridge, "--", "set", "Bridge", bridge, "datapath_type=netdev",
                      "fail_mode=secure", "protocols=OpenFlow13",
                      f"other_config:datapath-id={datapath_id(sw)}",
                      "other_config:disable-in-band=true")
            self.ovs[sw] = ovs

    def _ovs_instance(self, sw: str) -> OvsInstance:
        return OvsInstance(self.state / sw, self.names.switch_netns(sw))

    def _db_options(self, sw: str) -> list[str]:
        return []

    def _veth(self, a: str, a_ns: str, b: str, b_ns: str, *, b_mac: str | None = None,
              mtu: int | None = None) -> None:
        self.ledger.record("link", name=a, netns=a_ns)
        make_veth(a, a_ns, b, b_ns, b_mac=b_mac, mtu=mtu)

    def _add_port(self, sw: str, name: str, ofport: int, *, own_qdisc: bool = False,
                  interface: tuple[str, ...] = (), **attrs) -> None:
        bridge = self.names.switch_bridge(sw)
        # OVS replaces a port's qdisc with its own QoS setting unless told not to (linux-noop)
        qos = ["--", "set", "Port", name, "qos=@noop", "--", "--id=@noop", "create", "QoS",
               "type=linux-noop"] if own_qdisc else []
        self.ovs[sw].vsctl("add-port", bridge, name, "--", "set", "Interface", name,
                           f"ofport_request={ofport}", *interface, *qos)
        self.ports[sw].append({"name": name, "ofport": ofport, **attrs})

    def _shape(self, name: str, netns: str) -> None:
        """The link's rate limit (tbf) over a queue that drops its oldest packet when full (pfifo_head_drop).

        Open vSwitch sends a batch of packets at a time and frees the rest of the batch, uncounted, when the
        kernel refuses one. A head-drop queue never refuses a packet (it drops an older one, counted by tbf),
        and it is kept shorter than the packet socket's send buffer, which would refuse first."""
        rate_bps = self.spec.pcie_gbps * 1e9
        burst = max(int(rate_bps / 8 / 1000), 32 * 1024)  # 1 ms of traffic, at least 32 KiB
        system.run(["tc", "qdisc", "add", "dev", name, "root", "handle", "1:", "tbf", "rate", f"{int(rate_bps)}bit",
                    "burst", str(burst), "latency", TBF_LATENCY], netns=netns)
        system.run(["tc", "qdisc", "add", "dev", name, "parent", "1:1", "handle", "10:", "pfifo_head_drop", "limit",
                    str(shaper_queue_packets(self.spec.pcie_mtu))], netns=netns)

    def _pcie_links(self) -> None:
        host_ns = self.names.switch_netns("host")
        for i in range(self.spec.snics):
            snic = Names.snic(i)
            snic_ns = self.names.switch_netns(snic)
            hport, sport = self.names.pcie_host_port(i), self.names.pcie_snic_port(i)
            if self.dpdk:
                self._vhost_link(i, hport, sport)
                continue
            self._veth(hport, host_ns, sport, snic_ns, mtu=self.spec.pcie_mtu)
            self._add_port("host", hport, 1 + i, own_qdisc=True, kind="pcie",
                           peer={"switch": snic, "port": sport})
            self._add_port(snic, sport, 1, own_qdisc=True, kind="pcie",
                           peer={"switch": "host", "port": hport})
            self._shape(hport, host_ns)
            self._shape(sport, snic_ns)
            self.links.append({"host_port": hport, "snic": snic, "snic_port": sport,
                               "gbps": self.spec.pcie_gbps, "mtu": self.spec.pcie_mtu})

    def _vhost_link(self, i: int, hport: str, sport: str) -> None:
        """The DPDK datapath's link (dpdk.py): the host serves a vhost-user socket, the sNIC attaches to it."""
        snic, gbps, mtu = Names.snic(i), self.spec.pcie_gbps, self.spec.pcie_mtu
        self._add_port("host", hport, 1 + i, interface=tuple(dpdk.pcie_host_interface(gbps, mtu)), kind="pcie",
                       peer={"switch": snic, "port": sport})
        socket = self.ovs["host"].rundir / hport
        system.wait_for(socket.exists, 10, f"the vhost-user socket {socket}")
        self._add_port(snic, sport, 1, interface=tuple(dpdk.pcie_snic_interface(socket, i, gbps, mtu)),
                       kind="pcie", peer={"switch": "host", "port": hport})
        self.links.append({"host_port": hport, "snic": snic, "snic_port": sport, "gbps": gbps, "mtu": mtu})

    def _wire_ports(self) -> None:
        ext_ns = self.names.ext_netns()
        for i in range(self.spec.snics):
            snic = Names.snic(i)
            for k in range(self.spec.wire_ports):
                n = i * self.spec.wire_ports + k
                port, ifname, mac = self.names.wire_port(i, k), f"eth{n}", ext_mac(n)
                ip = VM_SUBNET.format(254 - n)
                self._veth(port, self.names.switch_netns(snic), ifname, ext_ns, b_mac=mac)
                system.run(["ip", "-n", ext_ns, "addr", "add", ip, "dev", ifname])
                self._add_port(snic, port, 2 + k, kind="wire", ext_ifname=ifname)
                self.ext.append({"ifname": ifname, "mac": mac, "ip": ip, "switch": snic, "port": port})

    def _vms(self) -> None:
        host_ns = self.names.switch_netns("host")
        for j in range(self.spec.vms):
            vm_ns, port = self.names.vm_netns(j), self.names.vm_port(j)
            self.ledger.record("netns", name=vm_ns)
            make_netns(vm_ns)
            self._veth(port, host_ns, "eth0", vm_ns, b_mac=vm_mac(j))
            vm = _configure_vm(vm_ns, port, j)
            self._add_port("host", port, 1 + self.spec.snics + j, kind="vm", vm=vm["id"])
            self.vms.append(vm)

    def _controller(self) -> None:
        """Points each bridge at the controller."""
        host, port = parse_controller(self.spec.controller)
        ssl = self.spec.controller.startswith("ssl:")
        if ssl and self.pki is None:
            self.pki = self._pki(("oneswitch",))
        for sw in self.switch_ids:
            self._connect_controller(sw, host, port, ssl)

    def _pki(self, controllers: tuple[str, ...]) -> pki.Pki:
        """The operator's PKI (--pki-dir), or a new one in the state directory, with certificates for every
        switch and `controllers`."""
        if self.spec.pki_dir:
            return pki.existing(pathlib.Path(self.spec.pki_dir), [*self.switch_ids, *controllers])
        return pki.create(self.state / "pki", self.switch_ids, controllers)

    @staticmethod
    def controller_relay_target(host: str, port: int) -> str:
        """The relay's side toward the controller. It retries the connection every 50 ms for up to 10 s, so a
        bridge whose controller is not listening yet (OneSwitch starting or restarting) waits on the relay
        rather than being refused, which would put Open vSwitch into its reconnect backoff (1, 2, 4, 8 s). The
        emulation's plumbing only: a server's bridges reach their controller directly (oneswitch/DESIGN.md,
        "Restart")."""
        return f"TCP:{host}:{port},retry=200,interval=0.05"

    def _connect_controller(self, sw: str, host: str, port: int, ssl: bool) -> None:
        """The bridges live in their own namespaces, so a relay carries the connection out: with tcp:, a
        Unix socket (root only) the bridge connects to; with ssl:, a TCP port on the namespace's loopback (OVS
        speaks SSL over TCP only) relayed through that socket, the SSL session staying end to end between the
        bridge and the controller."""
        ovs = self.ovs[sw]
        sock = ovs.rundir / "controller.sock"
        self._relay(sw, "controller-relay",
                    [f"UNIX-LISTEN:{sock},fork,unlink-early,mode=600", self.controller_relay_target(host, port)])
        system.wait_for(sock.exists, 5, f"the controller relay socket {sock}")
        target = f"unix:{sock}"
        if ssl:
            ovs.vsctl("set-ssl", str(self.pki.private_key(sw)), str(self.pki.certificate(sw)),
                      str(self.pki.controller_ca))
            self._relay(sw, "controller-ssl-relay", [f"TCP-LISTEN:{SSL_RELAY_PORT},bind=127.0.0.1,fork,reuseaddr",
                                                     f"UNIX-CONNECT:{sock}"], netns=ovs.netns)
            target = f"ssl:127.0.0.1:{SSL_RELAY_PORT}"
        ovs.vsctl("set-controller", self.names.switch_bridge(sw), target)

    def _relay(self, sw: str, name: str, addresses: list[str], netns: str | None = None) -> None:
        """A socat relay, recorded in the ledger so that `down` stops it."""
        with open(self.state / f"{sw}-{name}.log", "ab") as logf:
            relay = subprocess.Popen([*(["ip", "netns", "exec", netns] if netns else []), "socat", *addresses],
                                     stdin=subprocess.DEVNULL, stdout=logf, stderr=logf, start_new_session=True)
        self.ledger.record("process", name=f"{sw}/{name}", pid=relay.pid, start=system.start_time(relay.pid),
                           group=True)

    def _read_ofports(self) -> None:
        for sw, ports in self.ports.items():
            for port in ports:
                actual = self.ovs[sw].ofport(port["name"])
                if actual != port["ofport"]:
                    raise PlatformError(f"{port['name']} got OpenFlow port {actual}, "
                                        f"not the requested {port['ofport']}")

    def _description(self) -> dict:
        switches = []
        for sw in self.switch_ids:
            ovs, bridge = self.ovs[sw], self.names.switch_bridge(sw)
            entry = {
                "id": sw, "role": "host" if sw == "host" else "snic", "datapath_id": datapath_id(sw),
                "bridge": bridge, "netns": ovs.netns, "rundir": str(ovs.rundir),
                "ovsdb": ovs.db_socket, "openflow": ovs.mgmt_socket(bridge), "appctl": ovs.appctl_socket,
                "cgroup": {"cpu": str(self.cgroups[sw].cpu), "cpuacct": str(self.cgroups[sw].cpuacct),
                           "cores": None if sw == "host" else self.spec.snic_cores},
                "ports": self.ports[sw],
            }
            if sw != "host":
                entry["model"], entry["nf_capable"] = self.spec.snic_model, SNIC_MODELS[self.spec.snic_model]
            if self.spec.controller:
                entry["controller"] = ovs.vsctl("get-controller", bridge)
            if self.pki:
                entry["ssl_certificate"] = str(self.pki.certificate(sw))
            switches.append(entry)
        description = {
            "schema": "uno-platform/1", "profile": EmulatedPlatform.profile, "prefix": self.spec.prefix,
            "state_dir": str(self.state), "spec": self.spec.to_json(), "switches": switches,
            "pcie_links": self.links, "vms": self.vms,
            "ext": {"netns": self.names.ext_netns(), "interfaces": self.ext},
        }
        if self.spec.controller:
            description["controller"] = self.spec.controller
        if self.pki:
            description["ssl"] = {"pki_dir": str(self.pki.dir), "private_key": str(self.pki.private_key("oneswitch")),
                                  "certificate": str(self.pki.certificate("oneswitch")),
                                  "ca_cert": str(self.pki.switch_ca)}
        return description


# -- tear-down ------------------------------------------------------------------------------

def _undo(entries: list[dict]) -> list[str]:
    """Remove the objects of `entries`, newest first; returns the problems met."""
    problems = []
    for entry in reversed(entries):
        try:
            _UNDO[entry["kind"]](entry)
        except (PlatformError, OSError) as exc:
            problems.append(str(exc))
    return problems


def _undo_process(entry: dict) -> None:
    system.stop_process(entry["pid"], entry.get("start"), group=entry.get("group", False))


def _undo_link(entry: dict) -> None:
    netns = entry["netns"]   # None: the root namespace
    if (netns is None or netns in system.netns_list()) and system.link_exists(entry["name"], netns):
        system.run(["ip", *(["-n", netns] if netns else []), "link", "del", entry["name"]])


def _undo_netns(entry: dict) -> None:
    name = entry["name"]
    if name not in system.netns_list():
        return
    # Whatever still runs in the namespace was started on this testbed (NFs, test
    # traffic); left alive, it would keep the namespace and its interfaces around.
    for pid in system.netns_pids(name):
        system.stop_process(pid, system.start_time(pid))
    system.run(["ip", "netns", "del", name])


def _undo_cgroup(entry: dict) -> None:
    cgroup = SideCgroup(entry["cpu"], entry["cpuacct"])
    for pid in cgroup.pids():
        system.stop_process(pid, system.start_time(pid))
    system.wait_for(lambda: not cgroup.pids(), 5, f"cgroup {cgroup.cpu} to empty")
    cgroup.remove()


def _undo_dir(entry: dict) -> None:
    shutil.rmtree(entry["path"], ignore_errors=True)


def _undo_hugepages(entry: dict) -> None:
    hugepages.release(entry["pages"])


_UNDO = {"process": _undo_process, "link": _undo_link, "netns": _undo_netns,
         "cgroup": _undo_cgroup, "dir": _undo_dir, "hugepages": _undo_hugepages}


def _sweep_entries(prefix: str, state: pathlib.Path) -> list[dict]:
    """Ledger-like entries for whatever of `prefix` still exists, found by name.

    Listed in creation order (dir, cgroups, namespaces, processes) so that `_undo`
    removes processes first.
    """
    names = Names(prefix)
    entries: list[dict] = [{"kind": "dir", "path": str(state)}] if state.exists() else []
    for name in existing_names():
        if names.cgroup_pattern().match(name):
            cgroup = SideCgroup.for_name(name)
            entries.append({"kind": "cgroup", "cpu": str(cgroup.cpu), "cpuacct": str(cgroup.cpuacct)})
    pattern = names.netns_pattern()
    entries += [{"kind": "netns", "name": ns} for ns in system.netns_list() if pattern.match(ns)]
    entries += [{"kind": "link", "name": link, "netns": None} for link in system.links()
                if names.mgmt_port_pattern().match(link)]
    entries += [{"kind": "process", "pid": pid, "start": system.start_time(pid), "group": False}
                for pid in _pids_mentioning(f"{state}/")]
    return entries


def _pids_mentioning(path: str) -> list[int]:
    """Processes whose command line names a file under `path` (our daemons and relays)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
        except OSError:
            continue
        if path in cmdline:
            found.append(int(entry))
    return found
