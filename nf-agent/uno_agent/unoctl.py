"""unoctl: UNO's command line.

Each component contributes its subcommands through a `register(subparsers)`
function in its own `cli` module, so the CLI stays a thin shell over the
components.  A command reports bad input by raising SystemExit with a one-line
reason; unoctl then exits non-zero with that line on stderr.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import sys

# Modules that provide `register(subparsers)`, in the order of `unoctl --help`.
COMPONENT_CLIS = (
    "uno_agent.stack_cli",
    "uno_platform.cli",
    "uno_platform.pki_cli",
    "uno_platform.hardware_cli",
    "uno_oneswitch.cli",
    "uno_solver.cli",
    "uno_agent.cli",
)


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line (and exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="unoctl",
        description="Control UNO: the emulated platform, placement, NFs, rules and stats.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="log more to stderr (-v info, -vv debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMPONENT_CLIS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    level = {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
