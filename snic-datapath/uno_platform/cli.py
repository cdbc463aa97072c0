"""`unoctl testbed up|down|status|list`: the emulated platform from the command line."""
from __future__ import annotations

import argparse
import json
import sys

import uno_platform
from uno_platform import losses
from uno_platform.errors import PlatformError
from uno_platform.spec import TestbedSpec

# flag name -> TestbedSpec field; the same keys are accepted in a --config recipe file
SPEC_FLAGS = {
    "pcie-gbps": ("pcie_gbps", float, "PCIe link bandwidth per direction, Gbit/s"),
    "snic-cores": ("snic_cores", float, "CPU capacity of each sNIC in cores (cgroup quota)"),
    "snics": ("snics", int, "number of smart NICs"),
    "wire-ports": ("wire_ports", int, "Ethernet ports per sNIC, leading to the ext namespace"),
    "vms": ("vms", int, "VM namespaces attached to the host switch"),
    "controller": ("controller", str, "point every bridge at this controller, tcp:IP:PORT or ssl:IP:PORT "
                   "(certificates made with ovs-pki)"),
    "pcie-mtu": ("pcie_mtu", int, "MTU of the PCIe link (room for flow-id tags)"),
    "datapath": ("datapath", str, "veth (kernel interfaces, AF_PACKET) or dpdk (OVS-DPDK, a vhost-user PCIe "
                 "link and NF ports, hugepages reserved by up and released by down)"),
    "mgmt-subnet": ("mgmt_subnet", str, "the remote profile's management links, a /30 of it per sNIC (BlueField's "
                    "tmfifo: host .1, sNIC .2)"),
    "snic-model": ("snic_model", str, "the sNIC hardware it stands for: generic, bluefield, or netronome (switching "
                   "offload only: the placement keeps every NF on the host)"),
    "pki-dir": ("pki_dir", str, "with an ssl: controller or the remote profile, the certificates of this ovs-pki "
                "directory (`unoctl pki create`) instead of new ones"),
}
DEFAULTS = TestbedSpec()


def register(subparsers) -> None:
    parser = subparsers.add_parser("testbed", help="bring the emulated host + sNIC platform up or down",
                                   description="Manage emulated UNO platforms (one per prefix).")
    sub = parser.add_subparsers(dest="testbed_command", metavar="ACTION", required=True)

    up = sub.add_parser("up", help="build a platform and write its JSON description",
                        description="Build a host OVS, sNIC OVS(es), PCIe links, VMs and wire ports.")
    _common(up)
    up.add_argument("--config", metavar="FILE",
                    help="JSON recipe with any of the flags below as keys (flags override it); "
                         "see deploy/testbed/emulated.json")
    add_spec_flags(up)
    add_profile_flag(up)
    up.add_argument("--json", action="store_true", help="print the JSON description")
    up.set_defaults(func=_up)

    down = sub.add_parser("down", help="remove everything of a platform, also a half-built one")
    _common(down)
    down.set_defaults(func=_down)

    status = sub.add_parser("status", help="health, ports and CPU use of a platform")
    _common(status)
    status.add_argument("--json", action="store_true", help="print JSON instead of a table")
    status.set_defaults(func=_status)

    listing = sub.add_parser("list", help="the prefixes of running platforms")
    listing.add_argument("--state-dir", default=uno_platform.DEFAULT_STATE_DIR, help="state directory")
    listing.set_defaults(func=_list)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prefix", default=DEFAULTS.prefix,
                        help=f"name prefix of every object of the platform (default {DEFAULTS.prefix})")
    parser.add_argument("--state-dir", default=uno_platform.DEFAULT_STATE_DIR,
                        help=f"where descriptions and OVS run directories live (default "
                             f"{uno_platform.DEFAULT_STATE_DIR})")


def add_spec_flags(parser: argparse.ArgumentParser, skip: tuple[str, ...] = ()) -> None:
    """The flags of SPEC_FLAGS but `skip` (their default None: the recipe's value, else the spec's)."""
    for flag, (field, kind, text) in SPEC_FLAGS.items():
        if flag not in skip:
            parser.add_argument(f"--{flag}", dest=field, type=kind, default=None,
                                help=f"{text} (default {getattr(DEFAULTS, field)})")


def add_profile_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--profile", choices=sorted(uno_platform.PROFILES), default="emulated",
                        help="emulated: the sNIC shares the host's kernel (namespaces); remote: each sNIC is a machine "
                             "of its own, reached over a management link with mutual TLS (its daemon, its ovsdb) and "
                             "an ssl: controller only (default emulated)")


def spec_from_args(args: argparse.Namespace, command: str = "unoctl testbed up") -> TestbedSpec:
    """The spec of the recipe (--config) and the flags; a bad recipe exits with a line naming `command`."""
    values = {"prefix": args.prefix, "state_dir": args.state_dir}
    if args.config:
        values.update(_read_recipe(args.config, command))
    for field, _kind, _text in SPEC_FLAGS.values():
        if getattr(args, field, None) is not None:
            values[field] = getattr(args, field)
    return TestbedSpec(**values)


def _read_recipe(path: str, command: str) -> dict:
    try:
        with open(path) as f:
            recipe = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        raise SystemExit(f"{command}: cannot read {path}: {exc}") from None
    if not isinstance(recipe, dict):
        raise SystemExit(f"{command}: {path} must hold a JSON object")
    known = {flag: field for flag, (field, _kind, _text) in SPEC_FLAGS.items()}
    values = {}
    for key, value in recipe.items():
        if key not in known:
            raise SystemExit(f"{command}: {path}: unknown key {key!r} "
                             f"(known: {', '.join(sorted(known))})")
        kind = SPEC_FLAGS[key][1]
        if not isinstance(value, (int, float) if kind is float else kind) or isinstance(value, bool):
            raise SystemExit(f"{command}: {path}: {key} must be a {kind.__name__}")
        values[known[key]] = value
    return values


def _up(args: argparse.Namespace) -> int:
    try:
        platform = uno_platform.up(spec_from_args(args), args.profile)
    except PlatformError as exc:
        raise SystemExit(f"unoctl testbed up: {exc}") from None
    desc = platform.description
    if args.json:
        json.dump(desc, sys.stdout, indent=2)
        print()
        return 0
    print(f"testbed {desc['prefix']} is up; description: {desc['state_dir']}/platform.json")
    for sw in desc["switches"]:
        ports = ", ".join(f"{p['name']}={p['ofport']}" for p in sw["ports"])
        cores = sw["cgroup"]["cores"]
        limit = f", CPU quota {cores:g} cores" if cores is not None else ""
        where = f"in netns {sw['netns']}" if sw["netns"] else "in the machine's own namespace"
        print(f"  {sw['id']:<6} bridge {sw['bridge']} {where}{limit}; ports {ports}")
    for vm in desc["vms"]:
        print(f"  {vm['id']:<6} netns {vm['netns']} {vm['ifname']} {vm['ip']} -> {vm['switch']}:{vm['port']}")
    for ext in desc.get("ext", {}).get("interfaces", []):   # the emulation's outside world (a server has none)
        print(f"  ext    netns {desc['ext']['netns']} {ext['ifname']} {ext['ip']} "
              f"-> {ext['switch']}:{ext['port']}")
    if desc.get("controller"):
        print(f"  every bridge's controller: {desc['controller']}")
    return 0


def _down(args: argparse.Namespace) -> int:
    problems = uno_platform.down(args.prefix, args.state_dir)
    if problems:
        for problem in problems:
            print(f"unoctl testbed down: {problem}", file=sys.stderr)
        return 1
    print(f"testbed {args.prefix} is down")
    return 0


def _status(args: argparse.Namespace) -> int:
    try:
        status = uno_platform.load(args.prefix, args.state_dir).status(losses=True)
    except PlatformError as exc:
        raise SystemExit(f"unoctl testbed status: {exc}") from None
    if args.json:
        json.dump(status, sys.stdout, indent=2)
        print()
    else:
        print(f"testbed {status['prefix']} ({status['profile']}): "
              f"{'healthy' if status['healthy'] else 'UNHEALTHY'}")
        print(f"  {'switch':<7}{'bridge':<14}{'daemons':<10}{'cpu s':>8}{'quota':>7}  ports")
        for sw_id, sw in status["switches"].items():
            daemons = "up" if all(sw["daemons"].values()) and sw["netns_present"] else "DOWN"
            quota = "-" if sw["cpu_quota_cores"] is None else f"{sw['cpu_quota_cores']:g}"
            ports = " ".join(f"{name}={num}" for name, num in sw["ports"].items())
            print(f"  {sw_id:<7}{sw['bridge']:<14}{daemons:<10}{sw['cpu_seconds']:>8.2f}{quota:>7}  {ports}")
        if status["losses"]:
            print(f"  drops: {losses.summary(status['losses'])}")
    return 0 if status["healthy"] else 1


def _list(args: argparse.Namespace) -> int:
    for prefix in uno_platform.list_prefixes(args.state_dir):
        print(prefix)
    return 0
