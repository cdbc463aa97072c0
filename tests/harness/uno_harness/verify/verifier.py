"""The differential verifier: does OneSwitch's translation treat every packet as one switch would?

Method (DESIGN.md, "Correctness rules"): the same random OpenFlow 1.3 groups and rules are installed
through OneSwitch (which translates them onto the host and sNIC bridges of an emulated platform) and
on a reference Open vSwitch bridge whose ports carry the virtual port numbers. For each random packet,
`ofproto/trace` on the reference gives what one switch does; on the physical side the packet is
traced on the bridge of its ingress port, every copy sent over a PCIe link is traced again on the
bridge at the other end, and so on. Both sides are reduced to (virtual egress port, frame) pairs and
the frames sent to the controller (`datapath.execute`), and compared as multisets: same egress ports,
same headers, same drops, same packet-ins.

Rules that OneSwitch refuses (documented refusals) or that Open vSwitch refuses are removed from the
side that took them and counted. Frames that cross a PCIe link with two VLAN tags are counted too,
and compared like the others. Tracing a packet learns (NORMAL's MAC table on the reference, OneSwitch's
learn() entries on the bridges), so with NORMAL installed the packets are traced one at a time, each on
the reference first: both sides then learn the same addresses in the same order. A packet that runs NORMAL
more than once, its source rewritten in between, can find on one bridge what it learned itself a moment
before, which OneSwitch's learned entries show from the next packet on: such a packet, when it is treated
alike when traced again, is counted apart (`normal_learned_by_the_same_packet`), not as a mismatch.
"""
from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import json
import pathlib
import random
import re
import secrets
import subprocess
import tempfile
import threading
import time

from os_ken.ofproto import ofproto_v1_3 as ofp
from uno_oneswitch.appctl import Appctl
from uno_oneswitch.client import rest
from uno_oneswitch.ofclient import OfClient

from uno_harness.oneswitch import build_jar, start_oneswitch, wait_healthy
from uno_harness.processes import Proc, free_port
from uno_harness.verify import datapath, packets, rules

MAX_HOPS = 4
# OneSwitch's Layout.MPLS_ETHERTYPES: a frame of another Ethertype crosses a link encapsulated whole.
MPLS_ETHERTYPES = (0x0800, 0x86dd, 0x0806, 0x8847, 0x8848, 0x8100, 0x88a8)
EXAMPLES = 10
# OneSwitch's NORMAL tables (translate/Layout.java) and the cookie of the entries they learn (NormalPipeline).
NORMAL_TABLES = range(244, 251)
LEARNED_COOKIE = "cookie=0x554fffffffffffff"


@dataclasses.dataclass
class Outcome:
    outputs: list[tuple[int, str]]
    to_controller: list[str]
    # "coded"/"uncoded" (carried encapsulated): a frame with two VLAN tags leaves on another switch
    qinq_crossing: str = ""

    def key(self):
        return sorted(self.outputs), sorted(self.to_controller)


@dataclasses.dataclass
class Bridge:
    name: str
    appctl: str
    odp_to_ofport: dict[int, int]


class Platform:
    """What the verifier needs to know of the emulated platform, OneSwitch's port map and the reference."""

    def __init__(self, description: dict, port_map: list[dict], ref_bridge: str):
        self.bridges: dict[str, Bridge] = {}
        self.links: dict[tuple[str, int], tuple[str, int]] = {}
        for sw in description["switches"]:
            self.bridges[sw["id"]] = Bridge(sw["bridge"], sw["appctl"], _odp_ports(sw["appctl"], sw["bridge"]))
        for sw in description["switches"]:
            for p in sw["ports"]:
                if p["kind"] == "pcie":
                    peer = p["peer"]
                    peer_sw = next(s for s in description["switches"] if s["id"] == peer["switch"])
                    peer_of = next(q["ofport"] for q in peer_sw["ports"] if q["name"] == peer["port"])
                    self.links[(sw["id"], p["ofport"])] = (peer["switch"], peer_of)
        self.virtual = {(m["switch"], m["ofport"]): m["virtual_port"] for m in port_map}
        self.physical = {v: k for k, v in self.virtual.items()}
        host = next(s for s in description["switches"] if s["role"] == "host")
        self.ref = Bridge(ref_bridge, host["appctl"], _odp_ports(host["appctl"], ref_bridge))

    def ports(self) -> list[int]:
        return sorted(self.physical)


# dpif/show numbers a bridge's LOCAL port as OpenFlow 1.0 does; OpenFlow 1.3 (the port map, the rules) as 0xfffffffe.
OFPP10_LOCAL = 0xfffe
OFPP_LOCAL = 0xfffffffe


def _odp_ports(appctl: str, bridge: str) -> dict[int, int]:
    """Datapath port number -> OpenFlow port number of `bridge` (from dpif/show)."""
    with Appctl(appctl) as a:
        text = a.call("dpif/show")
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (\S+):$", line)
        if m:
            current = m[1]
            continue
        m = re.match(r"^    \S+ (\d+)/(\d+):", line)
        if m and current == bridge:
            out[int(m[2])] = OFPP_LOCAL if int(m[1]) == OFPP10_LOCAL else int(m[1])
    return out


class Tracer:
    """Traces packets on the reference and across the physical bridges; one control connection per thread."""

    def __init__(self, platform: Platform):
        self.p = platform
        self._local = threading.local()

    def _appctl(self, path: str) -> Appctl:
        conns = self._local.__dict__.setdefault("conns", {})
        if path not in conns:
            conns[path] = Appctl(path)
        return conns[path]

    def _trace(self, bridge: Bridge, in_port: int, frame: bytes, tun_id: int = 0) -> str:
        flow = f"in_port={in_port}"
        if tun_id:
            # ofproto/trace takes a packet's tunnel metadata from the flow only with a tunnel destination;
            # no entry matches tun_dst, so it stands in for the decapsulation's (none).
            flow += f",tun_id={tun_id:#x},tun_dst=127.0.0.1"
        return self._appctl(bridge.appctl).call("ofproto/trace", bridge.name, flow, frame.hex())

    def reference(self, in_port: int, frame: bytes) -> tuple[Outcome, str]:
        text = self._trace(self.p.ref, in_port, frame)
        eff = datapath.execute(datapath.datapath_actions(text), frame)
        ingress = self.p.physical[in_port][0]
        outputs, crossing = [], ""
        for odp, data in eff.outputs:
            v = self.p.ref.odp_to_ofport.get(odp)
            outputs.append((v, data.hex()))
            if self.p.physical[v][0] != ingress and len(datapath.vlan_tags(data)) >= 2:
                crossing = "coded" if datapath.l3_offset(data)[1] in MPLS_ETHERTYPES else "uncoded"
        return Outcome(outputs, [d.hex() for d in eff.to_controller], crossing), text

    def composed(self, in_port: int, frame: bytes) -> tuple[Outcome, list[str]]:
        switch, ofport = self.p.physical[in_port]
        pending = [(switch, ofport, frame, 0, 0)]
        outputs, controller, texts = [], [], []
        while pending:
            sw, port, data, hops, tun_id = pending.pop()
            if hops >= MAX_HOPS:
                raise datapath.Unsupported("packet crossed more links than the topology has")
            bridge = self.p.bridges[sw]
            text = self._trace(bridge, port, data, tun_id)
            texts.append(f"--- {sw} in_port={port}" + (f" tun_id={tun_id:#x}" if tun_id else "") + f"\n{text}")
            eff = datapath.execute(datapath.datapath_actions(text), data)
            if eff.recirculated is not None:
                # OneSwitch decapsulated a frame from a link and looks it up again in table 0 (resubmit(,0)),
                # the label in the tunnel id; ofproto/trace stops at the recirculation, so trace the rest.
                if tun_id or hops == 0:
                    raise datapath.Unsupported(f"recirculation on {sw} other than a link arrival's decapsulation")
                pending.append((sw, port, eff.recirculated, hops, datapath.final_tun_id(text)))
            # a packet-in after a link: a port carried to the pipeline home (a meter on two switches)
            controller += [d.hex() for d in eff.to_controller]
            for odp, out in eff.outputs:
                of = bridge.odp_to_ofport.get(odp)
                if (sw, of) in self.p.links:
                    peer_sw, peer_port = self.p.links[(sw, of)]
                    pending.append((peer_sw, peer_port, out, hops + 1, 0))
                elif (sw, of) in self.p.virtual:
                    outputs.append((self.p.virtual[(sw, of)], out.hex()))
                else:
                    raise datapath.Unsupported(f"output to {sw} port {of}, neither virtual nor a PCIe link")
        return Outcome(outputs, controller), texts


@dataclasses.dataclass
class Report:
    seed: int
    virtual_rules: dict
    groups: dict
    physical: dict
    packets: dict
    seconds: dict
    mismatches: list = dataclasses.field(default_factory=list)

    def ok(self) -> bool:
        return self.packets["mismatches"] == 0 and not self.virtual_rules["accepted_only_by_oneswitch"]

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


class Environment:
    """An emulated platform (host + 2 sNICs), OneSwitch in front of it, and the reference bridge."""

    def __init__(self, workdir: pathlib.Path, vms: int = 3, snics: int = 2, wire_ports: int = 2):
        import uno_platform
        from uno_platform.spec import TestbedSpec

        self._up = uno_platform
        self.workdir = workdir
        self.listen, self.south, self.rest = free_port(), free_port(), free_port()
        self.prefix = "v" + secrets.token_hex(2) + "-"
        self.platform = uno_platform.up(TestbedSpec(prefix=self.prefix, vms=vms, snics=snics, wire_ports=wire_ports,
                                                    controller=f"tcp:127.0.0.1:{self.south}"))
        self.oneswitch: Proc | None = None
        try:
            build_jar()
            desc = self.platform.description
            self.oneswitch = start_oneswitch(f"{desc['state_dir']}/platform.json", workdir / "oneswitch.log",
                                             listen=self.listen, south=self.south, rest_port=self.rest,
                                             controller=None)
            wait_healthy(self.oneswitch, self.rest, timeout=60, platform=self.platform)
            self.port_map = rest(self.rest, "GET", "/v1/ports")[1]["ports"]
            self.ref_bridge, self.ref_target = reference_bridge(self.platform, self.prefix, self.port_map)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.oneswitch is not None:
            self.oneswitch.stop()
        problems = self._up.down(self.prefix)
        if problems:
            raise RuntimeError(f"tear-down problems: {problems}")


def reference_bridge(platform, prefix: str, port_map: list[dict]) -> tuple[str, str]:
    """One Open vSwitch bridge (`prefix`ref, in the host's switch daemon) with an internal port `prefix`r<n>, up,
    numbered n for each virtual port n of `port_map` but LOCAL (its own LOCAL stands for it): what one switch does
    with the virtual switch's rules. Returns its name and OpenFlow target; it goes with the platform."""
    host = platform.switch("host")
    name = prefix + "ref"
    cmd = ["ovs-vsctl", f"--db={host['ovsdb']}", "add-br", name, "--", "set", "bridge", name,
           "datapath_type=netdev", "fail-mode=secure", "protocols=OpenFlow13"]
    ports = [m for m in port_map if m["virtual_port"] != OFPP_LOCAL]  # the virtual LOCAL is the bridge's
    for m in ports:
        port = f"{prefix}r{m['virtual_port']}"
        cmd += ["--", "add-port", name, port, "--", "set", "interface", port, "type=internal",
                f"ofport_request={m['virtual_port']}"]
    subprocess.run(cmd, check=True, capture_output=True, timeout=60)
    # Up, so that fast-failover buckets watching them are live, as the physical ports; LOCAL on both sides too.
    for dev in [f"{prefix}r{m['virtual_port']}" for m in ports] + [name, host["bridge"]]:
        subprocess.run(["ip", "-n", host["netns"], "link", "set", dev, "up"], check=True, capture_output=True,
                       timeout=30)
    return name, f"unix:{host['rundir']}/{name}.mgmt"


def install(env: Environment, group_specs: list[dict], rule_specs: list[dict]) -> tuple[list[dict], dict]:
    """Installs groups and rules on both sides; returns the rules both accepted, and the counts."""
    ref, osw = OfClient(env.ref_target), OfClient(env.listen)
    try:
        counts = {"generated": len(rule_specs), "installed": 0, "refused_by_oneswitch": collections.Counter(),
                  "refused_by_ovs": 0, "accepted_only_by_oneswitch": []}
        if any(s.get("meter") is not None for s in rule_specs):
            meter_ok = _send_all(ref, osw, [{}], lambda dp, _: rules.meter_mod(dp))
            assert meter_ok == [(None, None)], f"meter refused: {meter_ok}"
        groups_ok = _send_all(ref, osw, group_specs, rules.group_mod)
        for spec, (ref_err, osw_err) in zip(group_specs, groups_ok, strict=True):
            if ref_err or osw_err:
                raise RuntimeError(f"group {rules.describe(spec)} refused: ovs={ref_err} oneswitch={osw_err}")
        results = _send_all(ref, osw, rule_specs, rules.flow_mod)
        kept, undo_ref, undo_osw = [], [], []
        for spec, (ref_err, osw_err) in zip(rule_specs, results, strict=True):
            if ref_err is None and osw_err is None:
                kept.append(spec)
            elif ref_err is None:
                counts["refused_by_oneswitch"][osw_err] += 1
                undo_ref.append(spec)
            elif osw_err is None:
                counts["accepted_only_by_oneswitch"].append({"rule": rules.describe(spec), "ovs_error": ref_err})
                undo_osw.append(spec)
            else:
                counts["refused_by_ovs"] += 1
        for spec in undo_ref:
            ref.send(rules.flow_mod(ref.dp, spec, ofp.OFPFC_DELETE_STRICT))
        for spec in undo_osw:
            osw.send(rules.flow_mod(osw.dp, spec, ofp.OFPFC_DELETE_STRICT))
        ref.barrier()
        osw.barrier()
        counts["installed"] = len(kept)
        counts["refused_by_oneswitch"] = dict(counts["refused_by_oneswitch"])
        return kept, counts
    finally:
        ref.close()
        osw.close()


def _send_all(ref: OfClient, osw: OfClient, specs: list[dict], build) -> list[tuple[str | None, str | None]]:
    """Sends each spec to both; returns per spec (error on the reference, error on OneSwitch) or None."""
    xids = [(ref.send(build(ref.dp, s)), osw.send(build(osw.dp, s))) for s in specs]
    ref_errors = {m.xid: _error_name(m) for m in ref.barrier() if m.msg_type == ofp.OFPT_ERROR}
    osw_errors = {m.xid: _error_name(m) for m in osw.barrier() if m.msg_type == ofp.OFPT_ERROR}
    return [(ref_errors.get(r), osw_errors.get(o)) for r, o in xids]


def _error_name(msg) -> str:
    return f"type={msg.type},code={msg.code}"


def verify(env: Environment, *, seed: int, rule_count: int, packet_count: int, group_count: int = 6,
           workers: int = 6, in_port_share: float = 0.5, meter_share: float = 0.0) -> Report:
    rng = random.Random(seed)
    timings = {}
    t0 = time.monotonic()
    ports = sorted(m["virtual_port"] for m in env.port_map)
    group_specs = rules.generate_groups(rng, ports, group_count)
    rule_specs = rules.generate(rng, ports, rule_count, group_specs, in_port_share, meter_share)
    kept, counts = install(env, group_specs, rule_specs)
    timings["install"] = round(time.monotonic() - t0, 1)
    health = rest(env.rest, "GET", "/v1/health")[1]
    per_switch = _per_switch(env)
    normal = sum(sw["normal_tables"] for sw in per_switch.values())
    physical = {"flows": health["physical_entries"], "groups": health["physical_groups"],
                "flows_per_virtual_rule": round(health["physical_entries"] / max(1, len(kept)), 3),
                "normal_tables": normal,
                "flows_per_virtual_rule_without_normal_tables": round((health["physical_entries"] - normal)
                                                                      / max(1, len(kept)), 3),
                "per_switch": per_switch}
    platform = Platform(env.platform.description, env.port_map, env.ref_bridge)
    tracer = Tracer(platform)
    frames = packets.generate(rng, ports, packet_count)
    # ofproto/trace with a packet learns (NORMAL's MAC table on the reference, learn() on OneSwitch's bridges):
    # with NORMAL installed, packets are traced one at a time so that both sides learn in the same order.
    if any(rules.outputs_to_normal(s) for s in kept + list(group_specs)):
        workers = 1
    t1 = time.monotonic()
    stats = collections.Counter()
    mismatches = []
    by_key = {(r["table"], r["priority"]): r for r in kept}
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for result in pool.map(lambda f: _check(tracer, *f), frames):
            stats[result[0]] += 1
            stats["qinq_" + result[2]] += bool(result[2])
            if result[0] == "forwarded":
                stats["from_local"] += result[3]
                stats["to_local"] += result[4]
            if result[0] == "mismatch" and len(mismatches) < EXAMPLES:
                mismatches.append(_example(result, by_key))
    timings["trace"] = round(time.monotonic() - t1, 1)
    compared = stats["dropped"] + stats["forwarded"] + stats["to_controller"] + stats["mismatch"]
    packet_report = {"generated": packet_count, "compared": compared, "dropped": stats["dropped"],
                     "mismatches": stats["mismatch"],
                     "qinq_crossings": stats["qinq_coded"] + stats["qinq_uncoded"],
                     "qinq_encapsulated_crossings": stats["qinq_uncoded"],
                     "forwarded_from_local": stats["from_local"], "forwarded_to_local": stats["to_local"],
                     "unsupported": stats["unsupported"], "forwarded": stats["forwarded"],
                     "to_controller": stats["to_controller"], "traced_by": workers,
                     "normal_learned_by_the_same_packet": stats["normal_same_packet"]}
    group_report = {"generated": len(group_specs), "physical": health["physical_groups"]}
    return Report(seed, counts, group_report, physical, packet_report, timings, mismatches)


def _check(tracer: Tracer, in_port: int, frame: bytes):
    try:
        ref, ref_text = tracer.reference(in_port, frame)
        got, texts = tracer.composed(in_port, frame)
    except datapath.Unsupported as e:
        return ("unsupported", str(e), "")
    if ref.key() != got.key():
        if "NORMAL" in ref_text and _agree_again(tracer, in_port, frame):
            return ("normal_same_packet", None, "")
        return ("mismatch", {"in_port": in_port, "frame": frame.hex(), "reference": dataclasses.asdict(ref),
                             "oneswitch": dataclasses.asdict(got), "reference_trace": ref_text, "traces": texts},
                ref.qinq_crossing)
    if ref.outputs:
        return ("forwarded", None, ref.qinq_crossing, in_port == OFPP_LOCAL,
                any(port == OFPP_LOCAL for port, _data in ref.outputs))
    return ("to_controller" if ref.to_controller else "dropped", None, "")


def _agree_again(tracer: Tracer, in_port: int, frame: bytes) -> bool:
    """Whether a packet both sides treated differently the first time is treated alike when sent again. One
    bridge's NORMAL uses what the same packet learned in an earlier NORMAL (after a rewrite of its source), and
    OneSwitch's learned entries apply from the next packet on (oneswitch/DESIGN.md, "NORMAL"): counted apart."""
    return tracer.reference(in_port, frame)[0].key() == tracer.composed(in_port, frame)[0].key()


def _example(result, by_key: dict) -> dict:
    """A mismatch with the rules that took part in it (from the traces), enough to replay it alone."""
    info = result[1]
    used = set()
    for m in re.finditer(r"^\s+(\d+)\. .*priority (\d+)", info["reference_trace"], re.M):
        used.add((int(m[1]), int(m[2])))
    for text in info["traces"]:
        for m in re.finditer(r"^\s+(\d+)\. .*priority (\d+)", text, re.M):
            if int(m[1]) > 0:
                used.add((int(m[1]) - 1, int(m[2])))
    info["rules"] = [by_key[k] for k in sorted(used) if k in by_key]
    return info


def _normal_table_entry(flow: str) -> bool:
    """One of the entries NORMAL needs per switch (its tables 244-250, a notice's in the dispatch table; not a
    learned entry, which has the cookie 0x554fffffffffffff): a fixed cost, not one per rule."""
    if LEARNED_COOKIE in flow:
        return False
    table = re.search(r"table=(\d+),", flow)
    return table is not None and (int(table[1]) in NORMAL_TABLES or (table[1] == "0" and " mplsm," in flow))


def _per_switch(env: Environment) -> dict:
    out = {}
    for sw in env.platform.description["switches"]:
        flows = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "dump-flows", sw["openflow"]], capture_output=True,
                               text=True, timeout=120, check=True).stdout.splitlines()[1:]
        groups = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "dump-groups", sw["openflow"]], capture_output=True,
                                text=True, timeout=120, check=True).stdout.splitlines()[1:]
        out[sw["id"]] = {"flows": len(flows), "dispatch_table": sum(1 for f in flows if "table=0," in f),
                         "groups": len(groups), "normal_tables": sum(1 for f in flows if _normal_table_entry(f))}
    return out


def run(*, seed: int, rule_count: int, packet_count: int, group_count: int = 6, workers: int = 6,
        in_port_share: float = 0.5, meter_share: float = 0.0, workdir: pathlib.Path | None = None) -> Report:
    """Builds the environment, verifies, tears everything down."""
    workdir = workdir or pathlib.Path(tempfile.mkdtemp(prefix="uno-verify-"))
    env = Environment(workdir)
    try:
        return verify(env, seed=seed, rule_count=rule_count, packet_count=packet_count, group_count=group_count,
                      workers=workers, in_port_share=in_port_share, meter_share=meter_share)
    finally:
        env.close()


def replay(cases: list[dict], workdir: pathlib.Path | None = None) -> list[tuple[Outcome, Outcome]]:
    """Replays saved cases (groups, rules, one packet) in one environment, clearing both sides between
    cases; returns each case's (reference, OneSwitch) outcomes."""
    workdir = workdir or pathlib.Path(tempfile.mkdtemp(prefix="uno-replay-"))
    env = Environment(workdir)
    try:
        tracer = Tracer(Platform(env.platform.description, env.port_map, env.ref_bridge))
        out = []
        for case in cases:
            kept, counts = install(env, case.get("groups", []), case["rules"])
            assert len(kept) == len(case["rules"]), f"a saved rule was refused: {counts}"
            frame = bytes.fromhex(case["frame"])
            out.append((tracer.reference(case["in_port"], frame)[0], tracer.composed(case["in_port"], frame)[0]))
            clear(env)
        return out
    finally:
        env.close()


def clear(env: Environment) -> None:
    """Deletes every rule and group on both sides."""
    for target in (env.ref_target, env.listen):
        c = OfClient(target)
        try:
            c.send(c.parser.OFPFlowMod(c.dp, table_id=ofp.OFPTT_ALL, command=ofp.OFPFC_DELETE, out_port=ofp.OFPP_ANY,
                                       out_group=ofp.OFPG_ANY))
            c.send(c.parser.OFPGroupMod(c.dp, ofp.OFPGC_DELETE, ofp.OFPGT_ALL, ofp.OFPG_ALL, []))
            c.send(rules.meter_mod(c.dp, ofp.OFPMC_DELETE))
            errors = [m for m in c.barrier() if m.msg_type == ofp.OFPT_ERROR]
            assert not errors, errors
        finally:
            c.close()


def save_case(path: pathlib.Path, example: dict, groups: list[dict]) -> None:
    path.write_text(json.dumps({"in_port": example["in_port"], "frame": example["frame"], "groups": groups,
                                "rules": example["rules"]}, indent=1) + "\n")
