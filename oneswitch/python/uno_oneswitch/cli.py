"""`unoctl rules`: OneSwitch's explain view from the command line.

For each virtual rule (what the controller installed on the one virtual switch), the physical rules it
became on the host and sNIC bridges, with their counters; or, for a physical rule (by cookie), the
virtual rule(s) it came from. A table for people by default, JSON with --json.
"""
from __future__ import annotations

import argparse
import json
import urllib.parse

from uno_oneswitch.client import DEFAULT_REST, rest


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "rules", help="what each virtual rule became on the host and sNIC switches (OneSwitch explain)",
        description="Show OneSwitch's virtual rules and the physical rules they were translated into, with "
                    "counters; or, for a physical rule's cookie, the virtual rule it came from.")
    parser.add_argument("--rest", default=DEFAULT_REST, metavar="HOST:PORT",
                        help=f"OneSwitch's REST address (default {DEFAULT_REST})")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--rule", type=int, metavar="ID", help="only the virtual rule with OneSwitch id ID")
    which.add_argument("--cookie", metavar="COOKIE", help="only the virtual rules with this cookie (0x... or decimal)")
    which.add_argument("--physical-cookie", metavar="COOKIE",
                       help="the physical rule with this cookie and the virtual rule(s) it came from")
    parser.add_argument("--json", action="store_true", help="print the REST answer as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    query = {k: v for k, v in (("rule", args.rule), ("cookie", args.cookie),
                               ("physical_cookie", args.physical_cookie)) if v is not None}
    path = "/v1/explain" + ("?" + urllib.parse.urlencode(query) if query else "")
    try:
        status, body = rest(args.rest, "GET", path)
    except OSError as exc:
        raise SystemExit(f"unoctl rules: cannot reach OneSwitch at {args.rest}: {exc}") from None
    if status != 200:
        raise SystemExit(f"unoctl rules: {body.get('error') if isinstance(body, dict) else status}")
    if args.json:
        print(json.dumps(body, indent=2))
    elif "physical" in body and "from" in body:
        print(render_entry(body))
    else:
        print(render_rules(body))
    return 0


def render_rules(body: dict) -> str:
    lines = []
    for r in body["rules"]:
        lines.append(f"#{r['id']} table={r['table']} priority={r['priority']} {r['match']} "
                     f"actions={r['instructions']} cookie={r['cookie']} packets={r['n_packets']} bytes={r['n_bytes']}")
        lines += _physical(r)
    for g in body.get("groups", []):
        lines.append(f"group {g['group_id']} type={g['type']} " + " ".join(g["buckets"]))
        lines += _physical(g)
    if not lines:
        lines.append("no virtual rules")
    return "\n".join(lines)


def _physical(owner: dict) -> list[str]:
    rows = [(e["switch"], f"table={e['table']}", f"priority={e['priority']}", e["match"], e["instructions"],
             e["role"] + (f" (shared by {e['shared_by']})" if e["shared_by"] > 1 else ""),
             f"{e['n_packets']} pkts {e['n_bytes']} B") for e in owner["physical"]]
    rows += [(g["switch"], f"group={g['group_id']}", g["type"], " ".join(g["buckets"]), "",
              f"flow-id tag {g['flow_id_tag']}" if "flow_id_tag" in g else "", "") for g in owner["physical_groups"]]
    if not rows:
        return ["    (nothing: a port it uses is not mapped)"]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["    " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def render_entry(body: dict) -> str:
    e = body["physical"]
    lines = [f"{e['switch']} table={e['table']} priority={e['priority']} {e['match']} actions={e['instructions']} "
             f"cookie={e['cookie']} {e['role']} packets={e['n_packets']} bytes={e['n_bytes']}", "from:"]
    for o in body["from"]:
        if o["kind"] == "rule" and "id" in o:
            lines.append(f"    virtual rule #{o['id']} table={o['table']} priority={o['priority']} {o['match']} "
                         f"actions={o['instructions']}")
        else:
            lines.append(f"    {o['kind']}" + "".join(f" {k}={v}" for k, v in o.items() if k != "kind"))
    return "\n".join(lines)
