"""`unoctl place`: solve a placement graph from a JSON file and print the placement.

Registered into unoctl through `register(subparsers)`. Bad input (unreadable file, malformed
graph, bad option) raises SystemExit with a one-line reason. Exit status: 0 when a placement was
found, 1 when the problem is infeasible or the time limit stopped the search before any placement.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from .api import DEFAULT_GAP, METHODS, solve
from .graph import Graph, GraphError
from .ilp import BACKENDS
from .placement import Placement


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "place", help="compute an NF placement (host or sNIC) from a placement graph",
        description="Read a placement graph (JSON, schema uno-placement-graph/1; see solver/README.md), "
                    "place every node on the host or an sNIC minimising host resource use under the "
                    "PCIe limit T and the sNIC capacity D, and print the placement.")
    parser.add_argument("file", metavar="FILE.json", help="the placement graph ('-' reads stdin)")
    parser.add_argument("--method", choices=METHODS, default="fast",
                        help="fast (default): exact decomposition solver; ilp: reference ILP; "
                             "brute: enumeration (small graphs)")
    parser.add_argument("--time-limit", type=_positive, metavar="SECONDS",
                        help="stop after this long with the best placement and its certified gap")
    parser.add_argument("--gap", type=_non_negative, default=DEFAULT_GAP, metavar="REL",
                        help=f"relative optimality tolerance (default {DEFAULT_GAP:g}; 0 = exact)")
    parser.add_argument("--backend", choices=BACKENDS, default="cbc", help="ILP solver for --method ilp")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (uno-placement/1)")
    parser.add_argument("--check", action="store_true", help="only validate the graph, do not solve")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    graph = _load(args.file)
    if args.check:
        print(f"{args.file}: valid: {len(graph.nodes)} nodes, {len(graph.edges)} edges, "
              f"{len(graph.snics)} sNIC(s), resources {', '.join(graph.resources)}")
        return 0
    try:
        placement = solve(graph, args.method, args.time_limit, args.gap, backend=args.backend)
    except ValueError as exc:
        raise SystemExit(f"unoctl place: {exc}") from None
    print(placement.to_json() if args.json else table(graph, placement))
    return 0 if placement.placed else 1


def table(graph: Graph, placement: Placement) -> str:
    """The placement as text: a summary line, one line per node, then usage against the limits."""
    lines = [_summary(placement)]
    if placement.explanation:
        lines.append(f"why: {placement.explanation}")
    if not placement.placed:
        return "\n".join(lines)
    width = max(len("node"), *(len(n.id) for n in graph.nodes)) if graph.nodes else 4
    lines.append(f"{'node':<{width}}  kind  location  was")
    for node in graph.nodes:
        was = node.current if node.id in placement.moved else ""
        lines.append(f"{node.id:<{width}}  {node.kind:<4}  {placement.location[node.id]:<8}  {was}".rstrip())
    lines.append("host: " + _amounts(placement.host))
    for sid, use in placement.snics.items():
        usage = ", ".join(f"{r} {use.usage[r]:.4g}/{use.capacity[r]:.4g}" for r in use.usage)
        lines.append(f"{sid}: {usage}; PCIe {use.pcie_gbps:.4g}/{use.pcie_limit:.4g} Gbps")
    if placement.moved:
        lines.append(f"moved: {len(placement.moved)} node(s)")
    return "\n".join(lines)


def _summary(p: Placement) -> str:
    if not p.placed:
        return f"status: {p.status} ({p.method}, {p.seconds:.3f} s)"
    proven = "no bound (stopped before the LP's)" if p.bound is None else f"bound {p.bound:.6g}, gap {100 * p.gap:.4g}%"
    return f"status: {p.status} ({p.method}, {p.seconds:.3f} s), objective {p.objective:.6g}, {proven}"


def _amounts(amounts: Mapping[str, float]) -> str:
    return ", ".join(f"{r} {v:.4g}" for r, v in amounts.items())


def _load(path: str) -> Graph:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as exc:
        raise SystemExit(f"unoctl place: cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SystemExit(f"unoctl place: {path}: not UTF-8 text") from None
    try:
        return Graph.from_json(text)
    except GraphError as exc:
        raise SystemExit(f"unoctl place: {path}: {exc}") from None


def _positive(text: str) -> float:
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _non_negative(text: str) -> float:
    value = _number(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text}") from None
