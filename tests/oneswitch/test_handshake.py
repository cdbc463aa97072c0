"""Issue 16, point 6: the read-only requests os-ken, Faucet and Floodlight send on connect, asked of a plain Open
vSwitch bridge and of OneSwitch, answered alike field by field. Each difference is listed here with its reason
(and in oneswitch/README.md, "Handshake"); a new difference, or a listed one that went away, fails the test."""
from __future__ import annotations

import pytest
from oneswitch_stack import OfClient

pytestmark = pytest.mark.platform

#: (request, field) -> why OneSwitch answers differently from a plain bridge.
DIFFERENCES = {
    ("features", "datapath_id"): "the virtual switch's own datapath id",
    ("features", "n_tables"): "64 virtual tables by default (`tables`); Open vSwitch has 254",
    ("desc", "mfr_desc"): "OneSwitch says what it is",
    ("desc", "hw_desc"): "OneSwitch says what it is",
    ("desc", "sw_desc"): "OneSwitch says what it is",
    ("desc", "dp_desc"): "OneSwitch says what it is",
    ("port_desc", "ports"): "virtual ports, numbered by OneSwitch, and LOCAL (the host bridge's, named LOCAL, not "
                            "after a bridge); no PCIe link ports",
    ("table_features", "tables"): "64 tables; each matches and sets the fields OneSwitch translates",
    ("table_features", "table0.properties"): "property lists are what the translation expresses (a subset of Open "
                                             "vSwitch's fields and actions)",
    ("group_features", "actions"): "the action types OneSwitch translates: it adds the TTL copies, which Open "
                                   "vSwitch leaves out of groups",
    ("group_features", "max_groups"): "at most 0xffe00000 groups: on the switches, the ids from there up are "
                                      "OneSwitch's own groups'",
}


def ask(client: OfClient, request, reply_type: int) -> list:
    """Sends `request` and returns its reply messages (all parts of a multipart reply)."""
    xid = client.send(request)
    replies = []
    while True:
        msg = client.recv_until(reply_type)
        if msg.xid != xid:
            continue
        replies.append(msg)
        if not getattr(msg, "flags", 0) & client.ofp.OFPMPF_REPLY_MORE:
            return replies


def answers(target) -> dict[tuple[str, str], object]:
    """What a switch answers to the connect-time requests, as (request, field) -> value."""
    c = OfClient(target)
    p, ofp = c.parser, c.ofp
    out: dict[tuple[str, str], object] = {}
    try:
        f = ask(c, p.OFPFeaturesRequest(c.dp), ofp.OFPT_FEATURES_REPLY)[0]
        out |= {("features", k): getattr(f, k) for k in ("datapath_id", "n_buffers", "n_tables", "auxiliary_id",
                                                          "capabilities")}
        cfg = ask(c, p.OFPGetConfigRequest(c.dp), ofp.OFPT_GET_CONFIG_REPLY)[0]
        out |= {("get_config", "flags"): cfg.flags, ("get_config", "miss_send_len"): cfg.miss_send_len}
        d = ask(c, p.OFPDescStatsRequest(c.dp, 0), ofp.OFPT_MULTIPART_REPLY)[0].body
        out |= {("desc", k): getattr(d, k) for k in ("mfr_desc", "hw_desc", "sw_desc", "serial_num", "dp_desc")}
        ports = [x for r in ask(c, p.OFPPortDescStatsRequest(c.dp, 0), ofp.OFPT_MULTIPART_REPLY) for x in r.body]
        out[("port_desc", "ports")] = sorted((x.port_no, x.name) for x in ports)
        out[("port_desc", "up")] = all(not x.state & ofp.OFPPS_LINK_DOWN for x in ports if x.port_no < ofp.OFPP_MAX)
        tables = [x for r in ask(c, p.OFPTableFeaturesStatsRequest(c.dp, 0, []), ofp.OFPT_MULTIPART_REPLY)
                  for x in r.body]
        out[("table_features", "tables")] = len(tables)
        out[("table_features", "table0.property_types")] = sorted({prop.type for prop in tables[0].properties})
        out[("table_features", "table0.properties")] = sorted(repr(prop) for prop in tables[0].properties)
        g = ask(c, p.OFPGroupFeaturesStatsRequest(c.dp, 0), ofp.OFPT_MULTIPART_REPLY)[0].body
        out |= {("group_features", "types"): g.types, ("group_features", "capabilities"): g.capabilities,
                ("group_features", "max_groups"): g.max_groups, ("group_features", "actions"): g.actions}
        m = ask(c, p.OFPMeterFeaturesStatsRequest(c.dp, 0), ofp.OFPT_MULTIPART_REPLY)[0].body[0]
        out |= {("meter_features", k): getattr(m, k) for k in ("max_meter", "band_types", "capabilities",
                                                                "max_bands", "max_color")}
        for name, req in (("meter_config", p.OFPMeterConfigStatsRequest(c.dp, 0, ofp.OFPM_ALL)),
                          ("meter", p.OFPMeterStatsRequest(c.dp, 0, ofp.OFPM_ALL)),
                          ("queue", p.OFPQueueStatsRequest(c.dp, 0, ofp.OFPP_ANY, ofp.OFPQ_ALL)),
                          ("group_desc", p.OFPGroupDescStatsRequest(c.dp, 0))):
            replies = ask(c, req, ofp.OFPT_MULTIPART_REPLY)
            out[(name, "entries")] = sum(len(r.body) for r in replies)
        role = ask(c, p.OFPRoleRequest(c.dp, ofp.OFPCR_ROLE_NOCHANGE, 0), ofp.OFPT_ROLE_REPLY)[0]
        out[("role", "role")] = role.role
        a = ask(c, p.OFPGetAsyncRequest(c.dp), ofp.OFPT_GET_ASYNC_REPLY)[0]
        out |= {("async", k): getattr(a, k) for k in ("packet_in_mask", "port_status_mask", "flow_removed_mask")}
        out[("echo", "data")] = c.echo(b"handshake")
    finally:
        c.close()
    return out


def test_read_only_replies_are_those_of_open_vswitch_but_for_the_listed_differences(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=2)
    bridge = answers(stack.platform.switch("host")["openflow"])
    oneswitch = answers(stack.listen)
    differ = {key for key in bridge if bridge[key] != oneswitch.get(key)}
    details = {key: (bridge[key], oneswitch.get(key)) for key in differ - set(DIFFERENCES)}
    assert not details, f"differences not listed: {details}"
    assert differ == set(DIFFERENCES), f"listed but gone: {set(DIFFERENCES) - differ}"
