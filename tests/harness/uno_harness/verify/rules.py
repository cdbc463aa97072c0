"""Random OpenFlow 1.3 rule sets and packets for the verifier, as plain data (JSON-able specs).

A rule spec is a dict:

    {"table": 0, "priority": 812,
     "match": [["in_port", 1], ["eth_type", 2048], ["ipv4_src", "10.0.0.1", "255.255.255.0"]],
     "apply": [["set_field", "ipv4_src", "10.0.0.9"], ["output", 3]], "write": [["output", 2]],
     "metadata": [5, 255], "goto": 2, "clear": false}

and a group spec {"group_id": 1, "type": "all", "buckets": [{"weight": 0, "watch_port": null, "actions": [...]}]}
(a bucket may also have "watch_group").
Specs turn into os-ken messages (`flow_mod`, `group_mod`) and into readable text (`describe`). Values come
from small pools so that random packets hit random rules; priorities are distinct within a table, so no
two rules of a table overlap at the same priority (OpenFlow leaves that case undefined).
"""
from __future__ import annotations

import random

from os_ken.ofproto import ofproto_v1_3 as ofp
from os_ken.ofproto import ofproto_v1_3_parser as parser

MACS = ["02:00:00:00:01:00", "02:00:00:00:01:01", "02:00:00:00:02:00", "02:00:00:00:02:01", "02:00:00:00:03:00",
        "ff:ff:ff:ff:ff:ff"]
IPS = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.1.1", "192.168.1.1"]
IP6S = ["fd00::1", "fd00::2", "fd00::3"]
L4_PORTS = [53, 80, 443, 8080]
VIDS = [10, 20, 30]
TABLES = 4
# The meter rules apply (meter_share): on rules whose packets enter on two switches, as one bridge takes it.
METER_ID = 1

def _mac(rng: random.Random) -> str:
    return rng.choice(MACS)


# Group ids one Open vSwitch bridge accepts that OneSwitch also uses for its own groups on the switches
# (the first flow-id tag group, the flood group, a port group), the one it gives the first such group instead, and
# the last valid id: every fourth group from the second has one, so the controller's and OneSwitch's
# groups of one id meet in every run.
RESERVED_GROUP_IDS = (0xffe30010, 0xffe20000, 0xffe00003, 0xffdfffff, 0xffffff00)


def generate_groups(rng: random.Random, ports: list[int], count: int, kinds=("all", "indirect", "ff")) -> list[dict]:
    """`count` groups of the given types in turn, buckets over the virtual ports.

    SELECT is left out by default: Open vSwitch picks a SELECT bucket by the datapath's hash after a
    recirculation, which ofproto/trace does not follow (on either side), so there is nothing to compare.
    """
    out = []
    for i in range(1, count + 1):
        kind = kinds[i % len(kinds)]
        gid = RESERVED_GROUP_IDS[(i // 4) % len(RESERVED_GROUP_IDS)] if i % 4 == 2 else i
        n = 1 if kind == "indirect" else rng.randint(1, 3)
        buckets = []
        for _ in range(n):
            port = rng.choice(ports)
            actions = [["set_field", "eth_dst", _mac(rng)]] if rng.random() < 0.4 else []
            actions.append(["output", port if rng.random() < 0.85 else rng.choice(["FLOOD", "ALL", "NORMAL"])])
            buckets.append({"weight": rng.randint(1, 5) if kind == "select" else 0,
                            "watch_port": port if kind == "ff" else None, "actions": actions})
        out.append({"group_id": gid, "type": kind, "buckets": buckets})
    return out


def generate(rng: random.Random, ports: list[int], count: int, groups: list[dict] = (),
             in_port_share: float = 0.5, meter_share: float = 0.0) -> list[dict]:
    """`count` random rules over `ports` in tables 0..3 (more in the earlier tables); `meter_share` of them
    apply meter METER_ID (with in_ports on every switch, and without one)."""
    weights = [0.4, 0.25, 0.2, 0.15]
    per_table = [0] * TABLES
    for _ in range(count):
        per_table[rng.choices(range(TABLES), weights)[0]] += 1
    rules = []
    for table, n in enumerate(per_table):
        made = [_rule(rng, ports, table, 0, [g["group_id"] for g in groups], in_port_share, meter_share)
                for _ in range(n)]
        # Distinct priorities, higher for narrower matches (as in real rule sets: a catch-all at a high
        # priority would hide every other rule of its table).
        made.sort(key=lambda r: (len(r["match"]), rng.random()))
        for rule, prio in zip(made, sorted(rng.sample(range(1, 60000), n)), strict=True):
            rule["priority"] = prio
        rules += made
    rng.shuffle(rules)
    return rules


def _rule(rng: random.Random, ports: list[int], table: int, priority: int, group_ids: list[int],
          in_port_share: float, meter_share: float) -> dict:
    match: list[list] = []
    if rng.random() < in_port_share:
        match.append(["in_port", rng.choice(ports)])
    if rng.random() < 0.3:
        match.append(["eth_dst", _mac(rng)] if rng.random() < 0.85 else ["eth_dst", "01:00:00:00:00:00",
                                                                         "01:00:00:00:00:00"])
    if rng.random() < 0.2:
        match.append(["eth_src", _mac(rng)])
    vlan = rng.random()
    tagged = False
    if vlan < 0.15:
        vid = rng.choice(VIDS)
        match.append(["vlan_vid", 0x1000 | vid])
        tagged = True
        if rng.random() < 0.2:
            match.append(["vlan_pcp", rng.randint(0, 3)])
    elif vlan < 0.22:
        match.append(["vlan_vid", 0])
    elif vlan < 0.27:
        match.append(["vlan_vid", 0x1000, 0x1000])
        tagged = True
    l3 = rng.random()
    proto = None
    etype = None
    if l3 < 0.45:
        etype = 0x0800
        match.append(["eth_type", etype])
        if rng.random() < 0.4:
            match.append(["ipv4_src", rng.choice(IPS)] if rng.random() < 0.7 else
                         ["ipv4_src", rng.choice(IPS), "255.255.255.0"])
        if rng.random() < 0.4:
            match.append(["ipv4_dst", rng.choice(IPS)])
        if rng.random() < 0.1:
            match.append(["ip_dscp", rng.choice([0, 10, 46])])
        if rng.random() < 0.5:
            proto = rng.choice([6, 17, 1])
            match.append(["ip_proto", proto])
            if proto in (6, 17) and rng.random() < 0.5:
                match.append([("tcp" if proto == 6 else "udp") + rng.choice(["_src", "_dst"]), rng.choice(L4_PORTS)])
    elif l3 < 0.55:
        etype = 0x86DD
        match.append(["eth_type", etype])
        if rng.random() < 0.5:
            match.append(["ipv6_dst", rng.choice(IP6S)])
        if rng.random() < 0.4:
            proto = rng.choice([6, 17])
            match.append(["ip_proto", proto])
    elif l3 < 0.65:
        etype = 0x0806
        match.append(["eth_type", etype])
        if rng.random() < 0.5:
            match.append(["arp_op", rng.choice([1, 2])])
        if rng.random() < 0.4:
            match.append(["arp_tpa", rng.choice(IPS)])
    if table > 0 and rng.random() < 0.25:
        match.append(["metadata", rng.choice([1, 2, 3]), 0xff])
    spec: dict = {"table": table, "priority": priority, "match": match}
    if meter_share and rng.random() < meter_share:
        spec["meter"] = METER_ID
    spec["apply"] = _actions(rng, ports, tagged, etype, proto, group_ids, rng.choice([0, 1, 1, 2, 2, 3, 4]))
    if rng.random() < 0.1:
        spec["write"] = [["output", rng.choice(ports + ["CONTROLLER", "IN_PORT", "FLOOD", "ALL", "NORMAL"])]]
        if rng.random() < 0.3:
            spec["write"].insert(0, ["set_field", "eth_src", _mac(rng)])
    elif group_ids and rng.random() < 0.02:
        spec["write"] = [["group", rng.choice(group_ids)]]
    if rng.random() < 0.03:
        spec["clear"] = True
    if table < TABLES - 1 and rng.random() < 0.4:
        spec["goto"] = rng.randint(table + 1, TABLES - 1)
        if rng.random() < 0.5:
            spec["metadata"] = [rng.choice([1, 2, 3]), 0xff]
    return spec


def _actions(rng: random.Random, ports: list[int], tagged: bool, etype: int | None, proto: int | None,
             group_ids: list[int], n: int) -> list[list]:
    out: list[list] = []
    for _ in range(n):
        r = rng.random()
        if r < 0.45:
            out.append(["output", _output(rng, ports)])
        elif r < 0.6:
            out.append(["set_field", "eth_dst" if rng.random() < 0.5 else "eth_src", _mac(rng)])
        elif r < 0.7 and etype == 0x0800:
            out.append(["set_field", rng.choice(["ipv4_src", "ipv4_dst"]), rng.choice(IPS)])
        elif r < 0.74 and proto in (6, 17):
            out.append(["set_field", ("tcp" if proto == 6 else "udp") + "_dst", rng.choice(L4_PORTS)])
        elif r < 0.8 and not tagged:
            out.append(["push_vlan", 0x8100])
            out.append(["set_field", "vlan_vid", 0x1000 | rng.choice(VIDS)])
            tagged = True
        elif r < 0.86 and tagged:
            out.append(["pop_vlan"])
            tagged = False
        elif r < 0.9 and tagged:
            out.append(["set_field", "vlan_vid", 0x1000 | rng.choice(VIDS)])
        elif r < 0.95 and group_ids:
            out.append(["group", rng.choice(group_ids)])
        else:
            out.append(["output", _output(rng, ports)])
    return out


def _output(rng: random.Random, ports: list[int]):
    r = rng.random()
    if r < 0.7:
        return rng.choice(ports)
    return rng.choice(["FLOOD", "ALL", "IN_PORT", "CONTROLLER", "CONTROLLER", "NORMAL"])


def outputs_to_normal(spec: dict) -> bool:
    """True when a rule's or group's actions output to NORMAL (which learns, also when traced)."""
    lists = [spec.get("apply", []), spec.get("write", [])] + [b["actions"] for b in spec.get("buckets", [])]
    return any(a == ["output", "NORMAL"] for actions in lists for a in actions)


# -- os-ken messages ----------------------------------------------------------------------------

_RESERVED = {"FLOOD": ofp.OFPP_FLOOD, "ALL": ofp.OFPP_ALL, "IN_PORT": ofp.OFPP_IN_PORT, "TABLE": ofp.OFPP_TABLE,
             "CONTROLLER": ofp.OFPP_CONTROLLER, "NORMAL": ofp.OFPP_NORMAL}


def _port(p) -> int:
    return _RESERVED[p] if isinstance(p, str) else p


def _match(fields: list[list]):
    kwargs = {}
    for f in fields:
        kwargs[f[0]] = f[1] if len(f) == 2 else (f[1], f[2])
    return parser.OFPMatch(**kwargs)


def _os_ken_actions(actions: list[list]) -> list:
    out = []
    for a in actions:
        if a[0] == "output":
            out.append(parser.OFPActionOutput(_port(a[1]), ofp.OFPCML_NO_BUFFER))
        elif a[0] == "set_field":
            out.append(parser.OFPActionSetField(**{a[1]: a[2]}))
        elif a[0] == "push_vlan":
            out.append(parser.OFPActionPushVlan(a[1]))
        elif a[0] == "pop_vlan":
            out.append(parser.OFPActionPopVlan())
        elif a[0] == "group":
            out.append(parser.OFPActionGroup(a[1]))
        else:
            raise ValueError(f"unknown action {a}")
    return out


def meter_mod(dp, command: int = ofp.OFPMC_ADD):
    """Adds meter METER_ID, whose rate no trace reaches (ofproto/trace does not take tokens), or with
    OFPMC_DELETE deletes every meter."""
    if command == ofp.OFPMC_DELETE:
        return parser.OFPMeterMod(dp, command, 0, ofp.OFPM_ALL, [])
    return parser.OFPMeterMod(dp, command, ofp.OFPMF_PKTPS, METER_ID,
                              [parser.OFPMeterBandDrop(rate=1_000_000, burst_size=0)])


def flow_mod(dp, spec: dict, command: int = ofp.OFPFC_ADD):
    """The OFPFlowMod of `spec` (ADD, or DELETE_STRICT to remove it)."""
    ins = []
    if spec.get("meter") is not None:
        ins.append(parser.OFPInstructionMeter(spec["meter"], ofp.OFPIT_METER))
    if spec.get("apply") is not None and command != ofp.OFPFC_DELETE_STRICT:
        ins.append(parser.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, _os_ken_actions(spec["apply"])))
    if spec.get("clear"):
        ins.append(parser.OFPInstructionActions(ofp.OFPIT_CLEAR_ACTIONS, []))
    if spec.get("write"):
        ins.append(parser.OFPInstructionActions(ofp.OFPIT_WRITE_ACTIONS, _os_ken_actions(spec["write"])))
    if spec.get("metadata"):
        ins.append(parser.OFPInstructionWriteMetadata(*spec["metadata"]))
    if spec.get("goto") is not None:
        ins.append(parser.OFPInstructionGotoTable(spec["goto"]))
    if command == ofp.OFPFC_DELETE_STRICT:
        ins = []
    return parser.OFPFlowMod(dp, table_id=spec["table"], command=command, priority=spec["priority"],
                             match=_match(spec["match"]), instructions=ins, out_port=ofp.OFPP_ANY,
                             out_group=ofp.OFPG_ANY)


_GROUP_TYPES = {"all": ofp.OFPGT_ALL, "select": ofp.OFPGT_SELECT, "indirect": ofp.OFPGT_INDIRECT,
                "ff": ofp.OFPGT_FF}


def group_mod(dp, spec: dict):
    buckets = [parser.OFPBucket(weight=b["weight"], watch_port=b["watch_port"] or ofp.OFPP_ANY,
                                watch_group=ofp.OFPG_ANY if b.get("watch_group") is None else b["watch_group"],
                                actions=_os_ken_actions(b["actions"]))
               for b in spec["buckets"]]
    return parser.OFPGroupMod(dp, ofp.OFPGC_ADD, _GROUP_TYPES[spec["type"]], spec["group_id"], buckets)


def describe(spec: dict) -> str:
    """A readable one-line form of a rule or group spec (ovs-ofctl style)."""
    if "group_id" in spec:
        buckets = ",".join("bucket=" + ",".join(_text(a) for a in b["actions"]) for b in spec["buckets"])
        return f"group_id={spec['group_id']},type={spec['type']},{buckets}"
    match = ",".join(f"{f[0]}={f[1]}" + (f"/{f[2]}" if len(f) == 3 else "") for f in spec["match"])
    parts = [",".join(_text(a) for a in spec.get("apply", [])) or "drop"]
    if spec.get("meter") is not None:
        parts.insert(0, f"meter:{spec['meter']}")
    if spec.get("clear"):
        parts.append("clear_actions")
    if spec.get("write"):
        parts.append("write_actions(" + ",".join(_text(a) for a in spec["write"]) + ")")
    if spec.get("metadata"):
        parts.append(f"write_metadata:{spec['metadata'][0]}/{spec['metadata'][1]}")
    if spec.get("goto") is not None:
        parts.append(f"goto_table:{spec['goto']}")
    head = f"table={spec['table']},priority={spec['priority']}" + (f",{match}" if match else "")
    return f"{head} actions={' '.join(parts)}"


def _text(a: list) -> str:
    if a[0] == "set_field":
        return f"set_field:{a[2]}->{a[1]}"
    return ":".join(str(x) for x in a)
