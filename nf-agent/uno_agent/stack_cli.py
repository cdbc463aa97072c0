"""`unoctl up|down`: the platform, OneSwitch and the agent with one command (uno_agent.stack)."""
from __future__ import annotations

import argparse
import json
import sys

import uno_platform
from uno_agent.stack import Endpoints, StackError, down, stack_dir, up
from uno_platform.cli import DEFAULTS, add_profile_flag, add_spec_flags, spec_from_args

_ENDPOINTS = Endpoints()
# the ports flags, by Endpoints field
_PORT_FLAGS = {"openflow": "OneSwitch's OpenFlow listener for controllers and ovs-ofctl",
               "southbound": "OneSwitch's listener the platform's bridges connect to",
               "oneswitch_rest": "OneSwitch's REST API", "agent": "the agent's REST API"}


def register(subparsers) -> None:
    start = subparsers.add_parser(
        "up", help="bring up the platform, OneSwitch and the agent (what is not running yet)",
        description="Bring up what of UNO is not running yet, in order, and wait for each part: the emulated "
                    "platform (its bridges pointed at OneSwitch), OneSwitch (with a state file) and the agent. "
                    "Daemons run detached; their pid files, logs and REST tokens are in STATE_DIR/PREFIXstack. "
                    "Everything listens on 127.0.0.1.")
    _common(start)
    start.add_argument("--config", metavar="FILE",
                       help="the platform's JSON recipe, as `unoctl testbed up --config` reads it")
    add_spec_flags(start, skip=("controller",))   # the bridges' controller is OneSwitch
    start.add_argument("--controller", dest="sdn_controller", default=_ENDPOINTS.controller,
                       help="the SDN controller OneSwitch connects to, tcp:IP:PORT, or none "
                            "(controllers may also connect to --openflow) (default none)")
    for field, text in _PORT_FLAGS.items():
        start.add_argument(f"--{field.replace('_', '-')}", dest=field, type=_port, default=getattr(_ENDPOINTS, field),
                           help=f"TCP port of {text} (default {getattr(_ENDPOINTS, field)})")
    add_profile_flag(start)
    start.add_argument("--json", action="store_true", help="print what runs where as JSON")
    start.set_defaults(func=_up, controller=None)

    stop = subparsers.add_parser("down", help="stop the agent and OneSwitch, take the platform down",
                                 description="Stop the agent, then OneSwitch (by the pids `unoctl up` recorded), "
                                             "then take the platform down. Logs and tokens stay.")
    _common(stop)
    stop.set_defaults(func=_down)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prefix", default=DEFAULTS.prefix, help=f"the platform's prefix (default {DEFAULTS.prefix})")
    parser.add_argument("--state-dir", default=uno_platform.DEFAULT_STATE_DIR,
                        help=f"state directory (default {uno_platform.DEFAULT_STATE_DIR})")


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1..65535, not {port}")
    return port


def _up(args: argparse.Namespace) -> int:
    endpoints = Endpoints(controller=args.sdn_controller, **{field: getattr(args, field) for field in _PORT_FLAGS})
    try:
        spec = spec_from_args(args, "unoctl up")
        running = up(spec, endpoints, args.profile)
    except (StackError, uno_platform.SpecError) as exc:
        raise SystemExit(f"unoctl up: {exc}") from None
    if args.json:
        json.dump(running, sys.stdout, indent=2)
        print()
        return 0
    print(f"UNO {args.prefix} is up (platform {running['platform']}; stack files "
          f"{stack_dir(args.prefix, args.state_dir)})")
    for name, d in running["daemons"].items():
        print(f"  {name:<10} pid {d['pid']:<8} {d['url']}  token {d['token_file']}  log {d['log']}")
    print(f"  controllers: OneSwitch connects to {endpoints.controller} and listens on "
          f"tcp:127.0.0.1:{endpoints.openflow}")
    return 0


def _down(args: argparse.Namespace) -> int:
    problems = down(args.prefix, args.state_dir)
    for problem in problems:
        print(f"unoctl down: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"UNO {args.prefix} is down")
    return 0
