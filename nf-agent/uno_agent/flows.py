"""Virtual flow counters, read from OneSwitch's passive OpenFlow listener with ovs-ofctl.

The monitor turns each virtual rule that matches an ingress port and outputs to
ports into traffic between those ports' owners. Rules without an in_port, or
whose outputs come from a later table, carry traffic the agent cannot attribute
to a pair and are left out of the matrix (their ports' own counters still show it).
"""
from __future__ import annotations

import dataclasses
import re
import subprocess

from uno_agent.errors import Unavailable

_IN_PORT = re.compile(r"(?:^|,)in_port=(\d+)(?:,|$)")
_OUTPUT = re.compile(r"(?:^|,)output:(\d+)")
_BYTES = re.compile(r"\bn_bytes=(\d+)")


@dataclasses.dataclass(frozen=True)
class VirtualFlow:
    in_port: int | None
    outputs: tuple[int, ...]
    n_bytes: int


def parse_dump_flows(text: str) -> list[VirtualFlow]:
    """The flows of `ovs-ofctl -O OpenFlow13 dump-flows` output."""
    flows = []
    for line in text.splitlines():
        if " actions=" not in line or "n_bytes=" not in line:
            continue
        head, actions = line.strip().split(" actions=", 1)
        match = head.rsplit(", ", 1)[-1] if ", " in head else head
        in_port = _IN_PORT.search(match)
        flows.append(VirtualFlow(in_port=int(in_port.group(1)) if in_port else None,
                                 outputs=tuple(int(p) for p in _OUTPUT.findall(actions)),
                                 n_bytes=int(_BYTES.search(head).group(1))))
    return flows


def dump_virtual_flows(target: str, timeout: float = 10.0) -> list[VirtualFlow]:
    """Read the virtual rules with their counters from OneSwitch (`target`: tcp:IP:PORT)."""
    try:
        proc = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "dump-flows", target],
                              capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"cannot read flows from {target}: {exc}") from None
    if proc.returncode != 0:
        raise Unavailable(f"cannot read flows from {target}: {proc.stderr.strip()[-200:]}")
    return parse_dump_flows(proc.stdout)


def pair_counters(flows: list[VirtualFlow], owner: dict[int, str]) -> dict[tuple[str, str], int]:
    """Bytes per (source owner, destination owner), summed over rules; `owner` maps virtual ports."""
    counters: dict[tuple[str, str], int] = {}
    for flow in flows:
        if flow.in_port is None or flow.in_port not in owner:
            continue
        for out in flow.outputs:
            if out in owner and out != flow.in_port:
                pair = (owner[flow.in_port], owner[out])
                counters[pair] = counters.get(pair, 0) + flow.n_bytes
    return counters
