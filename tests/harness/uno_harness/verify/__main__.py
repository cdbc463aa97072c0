"""Command line of the differential verifier.

    python -m uno_harness.verify --rules 3024 --packets 20000 --seed 1 [--json report.json]

Brings up an emulated platform (host, two sNICs), OneSwitch and a reference bridge, installs random
groups and rules on both, traces random packets on both, prints a summary and exits 1 on any mismatch.
Needs root (namespaces, OVS) and the OneSwitch jar (built if missing).
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from uno_harness.verify.verifier import run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m uno_harness.verify", description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", type=int, default=300, help="random virtual rules (default 300)")
    ap.add_argument("--packets", type=int, default=2000, help="random packets traced (default 2000)")
    ap.add_argument("--groups", type=int, default=6, help="random groups (default 6)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--workers", type=int, default=6, help="tracing threads (default 6)")
    ap.add_argument("--in-port-share", type=float, default=0.5,
                    help="share of rules that match an ingress port (default 0.5)")
    ap.add_argument("--meter-share", type=float, default=0.0,
                    help="share of rules that apply one meter, on ports of every switch (default 0)")
    ap.add_argument("--json", type=pathlib.Path, help="write the full report here")
    args = ap.parse_args(argv)
    report = run(seed=args.seed, rule_count=args.rules, packet_count=args.packets, group_count=args.groups,
                 workers=args.workers, in_port_share=args.in_port_share, meter_share=args.meter_share)
    data = report.to_json()
    if args.json:
        args.json.write_text(json.dumps(data, indent=1) + "\n")
    summary = {k: v for k, v in data.items() if k != "mismatches"}
    print(json.dumps(summary, indent=1))
    for m in data["mismatches"][:3]:
        print(json.dumps({k: m[k] for k in ("in_port", "frame", "reference", "oneswitch", "rules")}, indent=1))
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
