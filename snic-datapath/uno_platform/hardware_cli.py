"""`unoctl render {bluefield,netronome}`: the files an operator installs on real smart NICs, from the same spec
flags (or --config recipe) as `unoctl testbed up`. Nothing is run; the README it writes says where each file goes."""
from __future__ import annotations

import argparse
import pathlib

from uno_platform import hardware
from uno_platform.cli import DEFAULTS, add_spec_flags, spec_from_args
from uno_platform.errors import PlatformError

SCRIPT_SUFFIX = ".sh"   # written executable


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "render", help="write the configuration of real smart NICs (BlueField, Netronome) for a spec",
        description="Render what an operator installs on the host and on each smart NIC (Open vSwitch set-up "
                    "scripts, the sNIC daemon's systemd unit, management-link addresses, a README saying where each "
                    "file goes) from the same spec as `unoctl testbed up`. Nothing is run.")
    parser.add_argument("profile", choices=sorted(hardware.PROFILES),
                        help="bluefield: BlueField-2/3 DPUs in DPU mode (NFs may run on them); netronome: Agilio "
                             "SmartNICs with OVS-TC offload (NFs stay on the host)")
    parser.add_argument("--out", required=True, type=pathlib.Path, metavar="DIR",
                        help="directory to write into (made if missing)")
    parser.add_argument("--force", action="store_true", help="overwrite files that already exist")
    parser.add_argument("--prefix", default=DEFAULTS.prefix,
                        help=f"name prefix of the bridges (default {DEFAULTS.prefix})")
    parser.add_argument("--config", metavar="FILE",
                        help="JSON recipe with any of the flags below as keys (flags override it)")
    add_spec_flags(parser, skip=("pki-dir",))   # nothing here signs: the files name where `unoctl pki create` puts them
    parser.set_defaults(func=_render, state_dir=DEFAULTS.state_dir)


def _render(args: argparse.Namespace) -> int:
    try:
        files = hardware.render(spec_from_args(args, "unoctl render"), args.profile)
    except PlatformError as exc:
        raise SystemExit(f"unoctl render: {exc}") from None
    existing = [path for path in sorted(files) if (args.out / path).exists()]
    if existing and not args.force:
        raise SystemExit(f"unoctl render: {args.out / existing[0]} already exists (--force overwrites)")
    for path, text in files.items():
        target = args.out / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            target.chmod(0o755 if path.endswith(SCRIPT_SUFFIX) else 0o644)
        except OSError as exc:
            raise SystemExit(f"unoctl render: cannot write {target}: {exc.strerror or exc}") from None
    print(f"wrote {len(files)} files for {args.profile} to {args.out}; {args.out / 'README.txt'} says where each goes")
    return 0
