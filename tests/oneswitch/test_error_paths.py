"""Requests that fail get exactly one OFPT_ERROR with their xid, the connection stays open, and a
change a physical bridge refuses is not kept anywhere (issue 15, items 7 and 8; issue 16, point 7)."""
from __future__ import annotations

import pytest
from oneswitch_stack import OfClient, ofctl, rest, switch_target, wait_for
from test_reconcile import rules, vsctl

pytestmark = pytest.mark.platform


def errors_for(client: OfClient, xid: int) -> list:
    """The messages received up to the next barrier reply that are errors of request `xid`."""
    return [m for m in client.barrier() if m.msg_type == client.ofp.OFPT_ERROR and m.xid == xid]


def test_two_apply_actions_instructions_get_one_error_and_the_connection_stays(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    c = OfClient(stack.listen)
    p, ofp = c.parser, c.ofp
    apply = p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(2)])
    xid = c.send(p.OFPFlowMod(c.dp, priority=5, match=p.OFPMatch(in_port=1), instructions=[apply, apply]))
    errors = errors_for(c, xid)
    assert len(errors) == 1 and errors[0].type == ofp.OFPET_BAD_INSTRUCTION, errors
    assert c.echo(b"still open")
    c.close()


def test_a_rule_the_bridges_refuse_is_not_kept_and_is_reported_once(oneswitch_stack):
    # A VLAN match without the present bit, then pop_vlan: Open vSwitch refuses the action
    # (BAD_ACTION/MATCH_INCONSISTENT). The rule has no ingress port, so both bridges get it.
    stack = oneswitch_stack(controller=False, vms=1)
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
    before = {sw: rules(stack.platform, sw) for sw in ("host", "snic0")}
    c = OfClient(stack.listen)
    p, ofp = c.parser, c.ofp
    pop = p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionPopVlan(), p.OFPActionOutput(1)])
    xid = c.send(p.OFPFlowMod(c.dp, priority=6, match=p.OFPMatch(vlan_vid=0x00ce), instructions=[pop]))
    errors = errors_for(c, xid)
    assert len(errors) == 1 and errors[0].type == ofp.OFPET_BAD_ACTION, errors

    virtual = ofctl(stack.target, "dump-flows").stdout
    assert "priority=6" not in virtual, virtual
    status, explained = rest(stack.rest, "GET", "/v1/explain")
    assert status == 200 and [r["priority"] for r in explained["rules"]] == [10], explained
    # after the barrier, the bridges hold exactly what they held before the refused request
    assert {sw: rules(stack.platform, sw) for sw in ("host", "snic0")} == before

    # A reconnecting bridge is made equal to the plan: the refused rule is not tried again.
    bridge = stack.platform.switch("host")["bridge"]
    target = vsctl(stack.platform, "host", "get-controller", bridge)
    vsctl(stack.platform, "host", "del-controller", bridge)
    wait_for(lambda: rules(stack.platform, "host") == [], 10, "Open vSwitch to drop the flows")
    vsctl(stack.platform, "host", "set-controller", bridge, target)
    wait_for(lambda: rules(stack.platform, "host") == before["host"], 30, "OneSwitch to reinstall the plan")
    assert "refused a change OneSwitch made on its own" not in stack.oneswitch.tail(200)
    assert c.echo()
    c.close()


def test_a_group_the_bridges_refuse_is_not_kept(oneswitch_stack):
    # set_field of a VLAN id without the present bit: Open vSwitch refuses it (BAD_ACTION/BAD_SET_ARGUMENT).
    stack = oneswitch_stack(controller=False, vms=1)
    c = OfClient(stack.listen)
    p, ofp = c.parser, c.ofp
    bucket = p.OFPBucket(actions=[p.OFPActionSetField(vlan_vid=5), p.OFPActionOutput(1)])
    xid = c.send(p.OFPGroupMod(c.dp, ofp.OFPGC_ADD, ofp.OFPGT_ALL, 7, [bucket]))
    errors = errors_for(c, xid)
    assert len(errors) == 1 and errors[0].type == ofp.OFPET_BAD_ACTION, errors
    groups = ofctl(stack.target, "dump-groups").stdout
    assert "group_id=7" not in groups, groups
    for sw in ("host", "snic0"):
        physical = ofctl(switch_target(stack.platform, sw), "dump-groups").stdout
        assert "set_field" not in physical, physical
    c.close()


def test_an_oversize_packet_out_is_refused_and_the_bridges_stay_connected(oneswitch_stack):
    # A frame that would come back in a PACKET_IN longer than OpenFlow's 16-bit length made the
    # host bridge send a PACKET_IN whose length wrapped to 0, which dropped its connection.
    stack = oneswitch_stack(controller=False, vms=1)
    c = OfClient(stack.listen)
    p, ofp = c.parser, c.ofp
    frame = bytes.fromhex("ffffffffffff020000000101" "0800") + bytes(65494 - 14)
    xid = c.send(p.OFPPacketOut(c.dp, buffer_id=ofp.OFP_NO_BUFFER, in_port=ofp.OFPP_CONTROLLER,
                                actions=[p.OFPActionOutput(ofp.OFPP_CONTROLLER, ofp.OFPCML_NO_BUFFER)], data=frame))
    errors = errors_for(c, xid)
    assert len(errors) == 1 and errors[0].type == ofp.OFPET_BAD_REQUEST, errors
    status, health = rest(stack.rest, "GET", "/v1/health")
    assert status == 200 and all(s["connected"] for s in health["switches"]), health
    assert "closing connection of switch" not in stack.oneswitch.tail(200)
    assert c.echo()
    c.close()


def test_port_numbers_outside_open_vswitchs_range_are_refused(oneswitch_stack):
    """Found by the soak: a rule with output to port 0x610002 was accepted, and ovs-ofctl then dropped the whole
    flow-stats message holding it (hundreds of rules missing from dump-flows). OVS refuses such ports; so does
    OneSwitch now, and ovs-ofctl sees every rule."""
    stack = oneswitch_stack(controller=False, vms=1)
    c = OfClient(stack.listen)
    p, ofp = c.parser, c.ofp
    out = p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(0x610002)])
    xid = c.send(p.OFPFlowMod(c.dp, priority=5, match=p.OFPMatch(in_port=1), instructions=[out]))
    errors = errors_for(c, xid)
    assert len(errors) == 1 and (errors[0].type, errors[0].code) == (ofp.OFPET_BAD_ACTION, ofp.OFPBAC_BAD_OUT_PORT)
    to_two = p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(2)])
    xid = c.send(p.OFPFlowMod(c.dp, priority=5, match=p.OFPMatch(in_port=0x10000), instructions=[to_two]))
    errors = errors_for(c, xid)
    assert len(errors) == 1 and (errors[0].type, errors[0].code) == (ofp.OFPET_BAD_MATCH, ofp.OFPBMC_BAD_VALUE)
    to_controller = p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(ofp.OFPP_CONTROLLER)])
    xid = c.send(p.OFPFlowMod(c.dp, priority=5, match=p.OFPMatch(in_port=1), instructions=[to_controller]))
    assert errors_for(c, xid) == [], "reserved ports stay valid"
    c.close()
    dump = ofctl(stack.target, "dump-flows")
    assert "priority=5,in_port=1 actions=CONTROLLER" in dump.stdout and "WARN" not in dump.stderr, dump


def test_a_match_field_openflowj_cannot_read_is_bad_match_bad_field(oneswitch_stack):
    """Issue 16, point 8: pbb_isid made the FLOW_MOD undecodable and was answered BAD_REQUEST/BAD_LEN; Open vSwitch
    answers BAD_MATCH/BAD_FIELD for a field it does not support, and so does OneSwitch now."""
    stack = oneswitch_stack(controller=False, vms=1)
    c = OfClient(stack.listen)
    p, ofp = c.parser, c.ofp
    out = p.OFPInstructionActions(ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(2)])
    for _ in range(20):  # more than the undecodable messages in a row that close a connection
        xid = c.send(p.OFPFlowMod(c.dp, priority=5, match=p.OFPMatch(eth_type=0x88e7, pbb_isid=5), instructions=[out]))
        errors = errors_for(c, xid)
        assert len(errors) == 1 and (errors[0].type, errors[0].code) == (ofp.OFPET_BAD_MATCH, ofp.OFPBMC_BAD_FIELD)
    assert c.echo()
    c.close()
