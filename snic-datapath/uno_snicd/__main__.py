"""uno-snicd: the sNIC daemon. Run on the sNIC: python3 -m uno_snicd --help."""
from __future__ import annotations

import argparse
import ipaddress
import logging
import pathlib
import signal
import ssl
import sys

from uno_platform import port_pool
from uno_platform.cgroups import SideCgroup
from uno_platform.errors import SpecError
from uno_platform.ovs import OvsInstance
from uno_platform.switch_side import SwitchSide
from uno_snicd import wire
from uno_snicd.daemon import SWITCH_CLIENT_OPS, Server, SnicDaemon

DEFAULT_PORT = 7340


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="uno-snicd", description="UNO's sNIC daemon: starts NFs on this sNIC and carries their control "
        "and state for the host's agent, over mutual TLS. Logs to stderr.")
    parser.add_argument("--listen", default=f"127.0.0.1:{DEFAULT_PORT}", metavar="IP:PORT",
                        help="address to listen on (default: %(default)s; on a sNIC, its management address)")
    parser.add_argument("--certificate", required=True, help="this daemon's certificate (PEM)")
    parser.add_argument("--private-key", required=True, help="this daemon's private key (PEM)")
    parser.add_argument("--ca-cert", required=True, help="the CA that signs the agent's certificate (PEM)")
    parser.add_argument("--client-name", default="uno-agent",
                        help="the CN the agent's certificate must carry (default: %(default)s)")
    parser.add_argument("--switch-client-name", default="oneswitch",
                        help="the CN of the certificate (OneSwitch's, of the same CA) that may ask for nothing but "
                             "purges of the switch's cached datapath flows (default: %(default)s; '' for nobody)")
    parser.add_argument("--bridge", required=True, help="the sNIC's Open vSwitch bridge")
    parser.add_argument("--ovs-rundir", default="/run/openvswitch",
                        help="the sNIC's Open vSwitch run directory (default: %(default)s)")
    parser.add_argument("--datapath", choices=("veth", "dpdk"), default="veth",
                        help="the kind of NF ports (default: %(default)s)")
    parser.add_argument("--cgroup-cpu", required=True, help="the cgroup (cpu controller) NFs run in")
    parser.add_argument("--cgroup-cpuacct", required=True, help="the same cgroup's cpuacct directory")
    parser.add_argument("--nf-port-prefix", required=True,
                        help="what NF ports' names start with: the only ports the agent may add, delete or plug an NF "
                             "into")
    parser.add_argument("--nf-port-pool", type=pathlib.Path, metavar="FILE",
                        help="NF ports made beforehand (a BlueField's SFs): a JSON list of {\"representor\": NAME, "
                             "\"netdev\": NAME}; each NF port is one of them, renamed, instead of a veth pair")
    parser.add_argument("--bin-dir", required=True, type=pathlib.Path, help="where the NF binaries are")
    parser.add_argument("--run-dir", required=True, type=pathlib.Path,
                        help="where NF control sockets, configs and logs go (made root-only)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    args = parser.parse_args(argv)
    try:
        host, _, port = args.listen.rpartition(":")
        args.address = (str(ipaddress.ip_address(host)), int(port))
        if not 0 < args.address[1] < 65536:
            raise ValueError
    except ValueError:
        parser.error(f"--listen must be IP:PORT, not {args.listen!r}")
    if args.switch_client_name == args.client_name:
        parser.error("--switch-client-name must differ from --client-name")
    if not args.bin_dir.is_dir():
        parser.error(f"--bin-dir {args.bin_dir} is not a directory")
    if args.nf_port_pool is not None and args.datapath != "veth":
        parser.error("--nf-port-pool needs --datapath veth")
    try:
        args.pool = port_pool.PortPool(port_pool.load(args.nf_port_pool)) if args.nf_port_pool else None
    except SpecError as exc:
        parser.error(str(exc))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s uno-snicd %(levelname)s %(message)s")
    try:
        tls = wire.context(ssl.Purpose.CLIENT_AUTH, args.certificate, args.private_key, args.ca_cert)
        side = SwitchSide(OvsInstance(args.ovs_rundir, None), args.bridge, None,
                          SideCgroup(args.cgroup_cpu, args.cgroup_cpuacct), args.datapath, args.pool)
        daemon = SnicDaemon(side, args.bin_dir, args.run_dir, args.nf_port_prefix)
        clients = {args.client_name: None}
        if args.switch_client_name:
            clients[args.switch_client_name] = SWITCH_CLIENT_OPS
        server = Server(args.address, tls, clients, daemon)
    except (OSError, ValueError, ssl.SSLError) as exc:
        print(f"uno-snicd: {exc}", file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    logging.getLogger(__name__).info("listening on %s:%d for %s", *args.address, " and ".join(clients))
    with server:
        server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
