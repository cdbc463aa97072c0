"""`unoctl pki create`: the keys and certificates of a server with remote sNICs, made with ovs-pki, and where
each file goes (uno_platform.pki)."""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from uno_platform import pki
from uno_platform.errors import PlatformError
from uno_platform.remote import AGENT_NAME
from uno_platform.spec import MAX_SNICS

CONTROLLERS = ("oneswitch", AGENT_NAME)     # what the switches and sNICs trust: OneSwitch, and the agent


def register(subparsers) -> None:
    parser = subparsers.add_parser("pki", help="keys and certificates for OneSwitch, the agent and the sNICs")
    sub = parser.add_subparsers(dest="pki_command", metavar="ACTION", required=True)
    create = sub.add_parser(
        "create", help="make a new PKI and every certificate a server with N sNICs needs",
        description="Make a new PKI with ovs-pki in DIR (its two CAs, private keys readable by root only) and a "
                    "certificate for the host's bridge, each sNIC (its bridge, ovsdb-server and daemon), OneSwitch "
                    "and the agent; print where each file goes. Refuses a DIR that already holds a PKI.")
    create.add_argument("--dir", required=True, type=pathlib.Path, help="where the PKI is made (e.g. /etc/uno/pki)")
    create.add_argument("--snics", type=int, default=1, help="number of sNICs (default 1)")
    create.add_argument("--json", action="store_true", help="print where each file goes as JSON")
    create.set_defaults(func=_create)


def _create(args: argparse.Namespace) -> int:
    if not 1 <= args.snics <= MAX_SNICS:
        raise SystemExit(f"unoctl pki create: --snics must be between 1 and {MAX_SNICS}, not {args.snics}")
    if (args.dir / "pki").exists():
        raise SystemExit(f"unoctl pki create: {args.dir} already holds a PKI; keep it, or remove it first")
    snics = [f"snic{i}" for i in range(args.snics)]
    try:
        made = pki.create(args.dir, ["host", *snics], CONTROLLERS)
    except PlatformError as exc:
        raise SystemExit(f"unoctl pki create: {exc}") from None
    placement = pki.placement(made, snics, CONTROLLERS)
    if args.json:
        json.dump(placement, sys.stdout, indent=2)
        print()
        return 0
    for machine, files in placement.items():
        print(f"{machine}:")
        for source, destination in files.items():
            print(f"  {source} -> {destination}")
    return 0
