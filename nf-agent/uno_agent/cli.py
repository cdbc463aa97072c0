"""`unoctl nf ...` and `unoctl stats`: the agent's REST API from the command line.

Human tables by default, the API's JSON with --json. Servers are named by id or
by name. Errors print the agent's one-line reason and exit non-zero.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import requests

from uno_platform import losses as platform_losses

DEFAULT_URL = os.environ.get("UNO_AGENT_URL", "http://127.0.0.1:8774")


class AgentClient:
    def __init__(self, url: str, token: str | None):
        self.url = url.rstrip("/")
        self.headers = {"X-Auth-Token": token} if token else {}

    def call(self, method: str, path: str, body: dict | None = None) -> dict | None:
        try:
            response = requests.request(method, self.url + path, json=body, headers=self.headers, timeout=120)
        except requests.RequestException as exc:
            raise SystemExit(f"unoctl: the agent at {self.url} does not answer "
                             f"({exc.__class__.__name__})") from None
        if response.status_code >= 400:
            try:
                fault = next(iter(response.json().values()))["message"]
            except (ValueError, StopIteration, KeyError, TypeError, AttributeError):
                fault = response.text.strip()[:200]
            raise SystemExit(f"unoctl: {method} {path}: {response.status_code} {fault}")
        return response.json() if response.content else None

    def server(self, ref: str) -> dict:
        servers = self.call("GET", "/v2.1/servers/detail")["servers"]
        for server in servers:
            if ref in (server["id"], server["name"]):
                return server
        raise SystemExit(f"unoctl: no server with id or name {ref!r}")


def register(subparsers) -> None:
    client = argparse.ArgumentParser(add_help=False)
    client.add_argument("--agent", default=DEFAULT_URL, metavar="URL",
                        help=f"the agent's REST API (default {DEFAULT_URL}, or $UNO_AGENT_URL)")
    client.add_argument("--token-file", help="file with the X-Auth-Token")
    nf = subparsers.add_parser("nf", help="create, list, show, delete and migrate VMs and NFs (the agent)",
                               description="Manage VMs and NFs through the NF agent's REST API.")
    sub = nf.add_subparsers(dest="nf_command", metavar="ACTION", required=True)

    def action(name: str, text: str):
        return sub.add_parser(name, help=text, parents=[client])

    create = action("create", "create a VM or an NF; the agent places it")
    create.add_argument("name")
    create.add_argument("--flavor", required=True, help="flavor id (unoctl nf flavors)")
    create.add_argument("--pin", help="run only on this side: host, snic0, ...")
    create.add_argument("--expected-gbps", type=float, help="traffic expected, for the first placement")
    create.add_argument("--config", metavar="FILE", help="the NF's configuration file")
    create.add_argument("--json", action="store_true")
    create.set_defaults(func=_create)

    listing = action("list", "all servers")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(func=_list)

    for name, text, func in (("show", "one server", _show), ("delete", "stop and remove a server", _delete)):
        parser = action(name, text)
        parser.add_argument("server", help="id or name")
        parser.add_argument("--json", action="store_true")
        parser.set_defaults(func=func)

    migrate = action("migrate", "move an NF host <-> sNIC with its state, losing no packet")
    migrate.add_argument("server", help="id or name")
    migrate.add_argument("--to", help="host, snic0, ... (default: the other side)")
    migrate.add_argument("--no-wait", action="store_true",
                         help="return once the agent accepted the migration (it runs in the background)")
    migrate.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for it (default 120)")
    migrate.add_argument("--json", action="store_true")
    migrate.set_defaults(func=_migrate)

    migrations = action("migrations", "the last migrations: steps, state, how long packets could wait")
    migrations.add_argument("--json", action="store_true")
    migrations.set_defaults(func=_migrations)

    flavors = action("flavors", "NF and VM types with their costs")
    flavors.add_argument("--json", action="store_true")
    flavors.set_defaults(func=_flavors)

    stats = subparsers.add_parser("stats", help="host and sNIC use, PCIe, traffic, placement, where packets were "
                                  "lost (the agent)",
                                  parents=[client])
    stats.add_argument("--json", action="store_true")
    stats.set_defaults(func=_stats)


def _client(args: argparse.Namespace) -> AgentClient:
    token = None
    if args.token_file:
        try:
            token = open(args.token_file).read().strip()
        except OSError as exc:
            raise SystemExit(f"unoctl: cannot read {args.token_file}: {exc.strerror}") from None
    return AgentClient(args.agent, token)


def _print_json(data) -> None:
    json.dump(data, sys.stdout, indent=2)
    print()


def table(rows: list[list], headers: list[str]) -> str:
    cells = [headers] + [["-" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in cells)
    return "\n".join(lines)


def _server_rows(servers: list[dict]) -> str:
    rows = [[s["name"], s["id"][:8], s["flavor"]["id"], s["status"],
             s["OS-EXT-SRV-ATTR:hypervisor_hostname"],
             ",".join(str(p["virtual_port"]) for p in s["ports"]) or None,
             ",".join(a["addr"] for addrs in s["addresses"].values() for a in addrs) or None]
            for s in servers]
    return table(rows, ["NAME", "ID", "FLAVOR", "STATUS", "RUNS ON", "VPORT", "ADDRESS"])


def _create(args: argparse.Namespace) -> int:
    server: dict = {"name": args.name, "flavorRef": args.flavor}
    if args.pin:
        server["uno:pin"] = args.pin
    if args.expected_gbps is not None:
        server["uno:expected_gbps"] = args.expected_gbps
    if args.config:
        try:
            server["uno:nf_config"] = open(args.config).read()
        except OSError as exc:
            raise SystemExit(f"unoctl: cannot read {args.config}: {exc.strerror}") from None
    created = _client(args).call("POST", "/v2.1/servers", {"server": server})["server"]
    if args.json:
        _print_json(created)
    else:
        print(_server_rows([created]))
    return 0


def _list(args: argparse.Namespace) -> int:
    servers = _client(args).call("GET", "/v2.1/servers/detail")["servers"]
    if args.json:
        _print_json(servers)
    else:
        print(_server_rows(servers))
    return 0


def _show(args: argparse.Namespace) -> int:
    server = _client(args).server(args.server)
    if args.json:
        _print_json(server)
    else:
        for key, value in server.items():
            if key != "links":
                print(f"{key:<38} {json.dumps(value) if isinstance(value, (dict, list)) else value}")
    return 0


def _delete(args: argparse.Namespace) -> int:
    client = _client(args)
    server = client.server(args.server)
    client.call("DELETE", f"/v2.1/servers/{server['id']}")
    if not args.json:
        print(f"deleted {server['name']} ({server['id']})")
    return 0


def _migrate(args: argparse.Namespace) -> int:
    client = _client(args)
    server = client.server(args.server)
    body = {"migrate": {"host": args.to} if args.to else None}
    moved = client.call("POST", f"/v2.1/servers/{server['id']}/action", body)["server"]
    deadline = time.monotonic() + args.timeout
    while not args.no_wait and moved["status"] == "MIGRATING":
        if time.monotonic() > deadline:
            raise SystemExit(f"unoctl: {moved['name']} still migrating after {args.timeout:g} s")
        time.sleep(0.1)
        moved = client.call("GET", f"/v2.1/servers/{server['id']}")["server"]
    if args.json:
        _print_json(moved)
    else:
        print(f"{moved['name']}: {server['OS-EXT-SRV-ATTR:hypervisor_hostname']} -> "
              f"{moved['OS-EXT-SRV-ATTR:hypervisor_hostname']}"
              + (" (migrating)" if moved["status"] == "MIGRATING" else ""))
    stayed = moved["OS-EXT-SRV-ATTR:hypervisor_hostname"] == server["OS-EXT-SRV-ATTR:hypervisor_hostname"]
    if moved["status"] != "MIGRATING" and stayed:
        raise SystemExit("unoctl: the migration was rolled back: "
                         + (moved.get("fault") or {}).get("message", "see unoctl nf migrations"))
    return 0


def _migrations(args: argparse.Namespace) -> int:
    client = _client(args)
    reports = client.call("GET", "/v2.1/uno/migrations")["migrations"]
    if args.json:
        _print_json(reports)
        return 0
    names = {s["id"]: s["name"] for s in client.call("GET", "/v2.1/servers")["servers"]}
    rows = [[names.get(r["server"], r["server"][:8]), f"{r['source']} -> {r['target']}",
             "rolled back" if r["rolled_back"] else "done", f"{sum(r['timings'].values()) * 1e3:.0f}",
             f"{r['held_window_s'] * 1e3:.1f}", r["flows"], r["state_bytes"], r.get("nf_losses", 0)]
            for r in reports]
    print(table(rows, ["SERVER", "MOVE", "RESULT", "TOTAL MS", "WAIT MS (MAX)", "FLOWS", "STATE B", "NF LOSSES"]))
    return 0


def _flavors(args: argparse.Namespace) -> int:
    flavors = _client(args).call("GET", "/v2.1/flavors/detail")["flavors"]
    if args.json:
        _print_json(flavors)
        return 0

    def cost(side):
        return "-" if side is None else f"{side['cpu_cores']:g}+{side['cpu_per_gbps']:g}/Gbps"
    print(table([[f["id"], f["kind"], cost(f["host"]), cost(f["snic"]), "yes" if f["accelerated"] else "",
                  f["name"]] for f in flavors],
                ["FLAVOR", "KIND", "HOST CPU", "SNIC CPU", "ACCEL", "DESCRIPTION"]))
    return 0


def _stats(args: argparse.Namespace) -> int:
    client = _client(args)
    hypervisors = client.call("GET", "/v2.1/os-hypervisors/detail")["hypervisors"]
    traffic = client.call("GET", "/v2.1/uno/traffic")["traffic"]
    placement = client.call("GET", "/v2.1/uno/placement")["placement"]
    losses = client.call("GET", "/v2.1/uno/losses")["losses"]
    if args.json:
        _print_json({"hypervisors": hypervisors, "traffic": traffic, "placement": placement, "losses": losses})
        return 0
    rows = []
    for h in hypervisors:
        pcie = h["uno:pcie"]
        rows.append([h["id"], h["running_vms"], f"{h['vcpus_used']:.2f}",
                     "-" if h["vcpus"] is None else f"{h['vcpus']:g}", f"{h['cpu_seconds']:.1f}",
                     "-" if pcie is None else f"{pcie['used_gbps']:.3f}/{pcie['capacity_gbps']:g}"])
    print(table(rows, ["SIDE", "INSTANCES", "CPU PLANNED", "CPU CAPACITY", "CPU SECONDS", "PCIE GBPS"]))
    print()
    print(table([[e["from"], e["to"], f"{e['gbps']:.4f}"] for e in traffic["edges"]], ["FROM", "TO", "GBPS"]))
    print()
    objective = placement.get("objective")
    print(f"placement: {placement['status']} ({placement.get('trigger') or 'no decision yet'}), "
          f"objective {'-' if objective is None else f'{objective:.3f}'}")
    print()
    print(table([[nf["name"], nf["side"] or "-", nf["ring"], nf["hold"], nf["send"],
                  "" if nf["live_counted"] else "no answer"] for nf in losses["nfs"].values()],
                ["NF", "SIDE", "LOST RING", "LOST HOLD", "LOST SEND", ""]))
    print("platform drops: " + (platform_losses.summary(losses["platform"]) if losses["platform"] else "unknown"))
    return 0
