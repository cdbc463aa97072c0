"""What a testbed should look like, validated, and the names of everything in it.

`TestbedSpec` is the validated request; `Names` derives every namespace, bridge,
interface and cgroup name from the prefix, so that `up`, `down` and the prefix
check agree on them and two testbeds with different prefixes never collide.
"""
from __future__ import annotations

import dataclasses
import ipaddress
import itertools
import re

from uno_platform.errors import SpecError

IFNAME_MAX = 15          # Linux IFNAMSIZ - 1
PREFIX_RE = re.compile(r"^[a-z][a-z0-9-]*$")
CONTROLLER_RE = re.compile(r"^(?P<scheme>tcp|ssl):(?P<host>[^:]+):(?P<port>\d+)$")
MAX_SNICS = 8
MAX_WIRE_PORTS = 16
MAX_VMS = 64
MIN_CORES = 0.01         # CFS quota must be at least 1 ms per 100 ms period
DATAPATHS = ("veth", "dpdk")
# The sNIC hardware a platform stands for, and whether NFs can run on it: a Netronome Agilio offloads switching
# only (its flow processors cannot run NFs), so the placement pins every NF to the host.
SNIC_MODELS = {"generic": True, "bluefield": True, "netronome": False}


@dataclasses.dataclass(frozen=True)
class TestbedSpec:
    """A request for an emulated server: a host switch, `snics` sNIC switches, links, VMs."""

    __test__ = False  # not a pytest test class, despite the name

    prefix: str = "uno-"
    pcie_gbps: float = 10.0
    snic_cores: float = 2.0
    snics: int = 1
    wire_ports: int = 1
    vms: int = 1
    controller: str | None = None
    pcie_mtu: int = 1600
    datapath: str = "veth"
    mgmt_subnet: str = "192.168.100.0/24"   # the remote profile's management links: a /30 per sNIC
    pki_dir: str | None = None              # an ovs-pki directory to take certificates from (`unoctl pki create`)
    snic_model: str = "generic"             # one of SNIC_MODELS
    state_dir: str = "/run/uno"

    def validate(self) -> None:
        """Raise SpecError with a one-line reason if the spec cannot be built."""
        if not PREFIX_RE.match(self.prefix):
            raise SpecError(f"prefix {self.prefix!r} must start with a lowercase letter and "
                            "contain only lowercase letters, digits and '-'")
        _check_range("pcie-gbps", self.pcie_gbps, 0.001, 400.0)
        _check_range("snic-cores", self.snic_cores, MIN_CORES, 1024.0)
        _check_range("snics", self.snics, 1, MAX_SNICS)
        _check_range("wire-ports", self.wire_ports, 0, MAX_WIRE_PORTS)
        _check_range("vms", self.vms, 0, MAX_VMS)
        _check_range("pcie-mtu", self.pcie_mtu, 1280, 9000)
        if self.datapath not in DATAPATHS:
            raise SpecError(f"--datapath must be one of {', '.join(DATAPATHS)}, not {self.datapath!r}")
        if self.snic_model not in SNIC_MODELS:
            raise SpecError(f"--snic-model must be one of {', '.join(SNIC_MODELS)}, not {self.snic_model!r}")
        if self.controller is not None:
            parse_controller(self.controller)
        mgmt_links(self)
        longest = max(Names(self.prefix).interfaces(self), key=len)
        if len(longest) > IFNAME_MAX:
            allowed = len(self.prefix) - (len(longest) - IFNAME_MAX)
            raise SpecError(f"interface name {longest!r} is longer than {IFNAME_MAX} characters: "
                            f"use a prefix of at most {max(allowed, 0)} characters")

    def to_json(self) -> dict:
        data = dataclasses.asdict(self)
        del data["prefix"], data["state_dir"]
        return data


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise SpecError(f"--{name} must be between {low:g} and {high:g}, not {value:g}")


def datapath_id(switch_id: str) -> str:
    """Host is 1, sNIC i is 2 + i (stable, so OneSwitch can be configured by hand too)."""
    number = 1 if switch_id == "host" else 2 + int(switch_id[len("snic"):])
    return f"{number:016x}"


def mgmt_links(spec: TestbedSpec) -> list[tuple[str, str]]:
    """(host address, sNIC address) of each sNIC's management link, with prefix length: the /30s of
    `mgmt_subnet` in order (BlueField's tmfifo uses 192.168.100.1/30 and .2)."""
    try:
        subnet = ipaddress.IPv4Network(spec.mgmt_subnet)
    except ValueError as exc:
        raise SpecError(f"--mgmt-subnet {spec.mgmt_subnet!r} is not an IPv4 network: {exc}") from None
    if subnet.prefixlen > 30 or subnet.num_addresses < 4 * spec.snics:
        raise SpecError(f"--mgmt-subnet {spec.mgmt_subnet} has room for fewer than {spec.snics} /30 links")
    links = []
    for link in itertools.islice(subnet.subnets(new_prefix=30), spec.snics):
        host, snic = list(link.hosts())
        links.append((f"{host}/30", f"{snic}/30"))
    return links


def parse_controller(target: str) -> tuple[str, int]:
    """Split 'tcp:IP:PORT' or 'ssl:IP:PORT' into (ip, port); SpecError if malformed."""
    match = CONTROLLER_RE.match(target)
    if not match:
        raise SpecError(f"controller {target!r} must look like tcp:IP:PORT or ssl:IP:PORT")
    try:
        host = str(ipaddress.ip_address(match["host"]))
    except ValueError:
        raise SpecError(f"controller {target!r}: {match['host']!r} is not an IP address") from None
    port = int(match["port"])
    if not 1 <= port <= 65535:
        raise SpecError(f"controller {target!r}: port must be 1-65535")
    return host, port


class Names:
    """Every name a testbed with this prefix uses; the only place names are made."""

    def __init__(self, prefix: str):
        self.prefix = prefix

    # switches: id -> netns / bridge / cgroup
    host = "host"

    @staticmethod
    def snic(i: int) -> str:
        return f"snic{i}"

    def switch_netns(self, switch_id: str) -> str:
        if switch_id == "host":
            return f"{self.prefix}host"
        index = int(switch_id[len("snic"):])
        return f"{self.prefix}snic" + (str(index) if index else "")

    switch_bridge = switch_netns

    def cgroup(self, switch_id: str) -> str:
        return f"{self.prefix}{switch_id}"

    # other namespaces
    def ext_netns(self) -> str:
        return f"{self.prefix}ext"

    def vm_netns(self, j: int) -> str:
        return f"{self.prefix}vm{j}"

    # interfaces on the switches
    def pcie_host_port(self, i: int) -> str:
        return f"{self.prefix}ph{i}"

    def pcie_snic_port(self, i: int) -> str:
        return f"{self.prefix}ps{i}"

    def mgmt_host_port(self, i: int) -> str:
        """The host's end of sNIC i's management link (the remote profile); the sNIC's is MGMT_SNIC_PORT."""
        return f"{self.prefix}m{i}"

    def nf_port_prefix(self) -> str:
        """What NF ports' names start with (`<prefix>n<k>`): all a sNIC daemon may add or delete."""
        return f"{self.prefix}n"

    def vm_port(self, j: int) -> str:
        return f"{self.prefix}vm{j}"

    def wire_port(self, i: int, k: int) -> str:
        return f"{self.prefix}w{i}p{k}"

    def interfaces(self, spec: TestbedSpec) -> list[str]:
        """Interface names the spec needs that carry the prefix (bridges included)."""
        names = [self.switch_bridge("host")]
        for i in range(spec.snics):
            names += [self.switch_bridge(self.snic(i)), self.pcie_host_port(i), self.pcie_snic_port(i),
                      self.mgmt_host_port(i)]
            names += [self.wire_port(i, k) for k in range(spec.wire_ports)]
        names += [self.vm_port(j) for j in range(spec.vms)]
        return names

    def namespaces(self, spec: TestbedSpec, *, vms: bool = True) -> list[str]:
        names = [self.switch_netns("host")]
        names += [self.switch_netns(self.snic(i)) for i in range(spec.snics)]
        names.append(self.ext_netns())
        if vms:
            names += [self.vm_netns(j) for j in range(spec.vms)]
        return names

    def netns_pattern(self) -> re.Pattern[str]:
        """Matches exactly the namespaces a testbed of this prefix may have created."""
        return re.compile("^" + re.escape(self.prefix) + r"(host|ext|snic\d*|vm\d+)$")

    def mgmt_port_pattern(self) -> re.Pattern[str]:
        """Matches the host ends of the management links (the remote profile)."""
        return re.compile("^" + re.escape(self.prefix) + r"m\d+$")

    def cgroup_pattern(self) -> re.Pattern[str]:
        return re.compile("^" + re.escape(self.prefix) + r"(host|snic\d+)$")
