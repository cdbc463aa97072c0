package org.uno.oneswitch.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.OF13;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFBarrierReply;
import org.projectfloodlight.openflow.protocol.OFAggregateStatsReply;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.OFFlowRemoved;
import org.projectfloodlight.openflow.protocol.OFFlowRemovedReason;
import org.projectfloodlight.openflow.protocol.OFFlowStatsReply;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPacketInReason;
import org.projectfloodlight.openflow.protocol.OFPacketOut;
import org.projectfloodlight.openflow.protocol.OFPortDescStatsReply;
import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.projectfloodlight.openflow.protocol.OFPortStatsReply;
import org.projectfloodlight.openflow.protocol.OFPortStatus;
import org.projectfloodlight.openflow.protocol.OFStatsReplyFlags;
import org.projectfloodlight.openflow.protocol.OFTableFeaturesStatsReply;
import org.projectfloodlight.openflow.protocol.OFType;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadActionErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFFlowModFailedErrorMsg;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.core.PortRequest;

/** The virtual switch seen through one controller connection, over in-memory physical switches. */
class RequestHandlerTest {
    private final Harness h;
    private final Harness.Conn c;

    RequestHandlerTest() throws Exception {
        h = new Harness();
        c = h.connect(false, true);
    }

    private static Match inPortEthDst(int port, String mac) {
        return OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(port))
                .setExact(MatchField.ETH_DST, MacAddress.of(mac)).build();
    }

    private static OFFlowMod add(long xid, int prio, Match m, OFAction... actions) {
        return OF13.buildFlowAdd().setXid(xid).setPriority(prio).setMatch(m).setCookie(U64.of(0xc0ffee))
                .setInstructions(List.of(OF13.instructions().applyActions(List.of(actions)))).build();
    }

    private static OFAction output(OFPort p) {
        return OF13.actions().output(p, 0xffff);
    }

    @Test
    void crossingRuleIsInstalledOnBothSwitchesAndCountedOnce() {
        c.send(add(1, 10, inPortEthDst(1, "02:00:00:00:02:00"), output(OFPort.of(3))));
        c.send(OF13.buildBarrierRequest().setXid(2).build());
        assertEquals(List.of(OFType.BARRIER_REPLY), c.received().stream().map(OFMessage::getType).toList());
        OFFlowMod hostRule = h.net.pipeline("host").get(0);
        OFFlowMod snicRule = h.net.flows("snic0").stream().filter(f -> f.getMatch().isExact(MatchField.MPLS_LABEL))
                .findFirst().orElseThrow();
        assertEquals(OFPort.of(2), hostRule.getMatch().get(MatchField.IN_PORT));
        assertEquals(OFPort.of(1), snicRule.getMatch().get(MatchField.IN_PORT), "the delivery on the PCIe port");
        assertEquals(List.of(), h.net.pipeline("snic0"));
        assertEquals(1, h.net.groups("host").size(), "the tag group");
        h.net.count(hostRule.getCookie(), 7, 700);
        h.net.count(snicRule.getCookie(), 7, 700);
        c.send(OF13.buildFlowStatsRequest().setXid(3).setMatch(OF13.buildMatch().build()).setTableId(TableId.ALL)
                .setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).setCookieMask(U64.ZERO).build());
        OFFlowStatsReply stats = assertInstanceOf(OFFlowStatsReply.class, c.received().get(0));
        assertEquals(1, stats.getEntries().size());
        assertEquals(7, stats.getEntries().get(0).getPacketCount().getValue());
        assertEquals(U64.of(0xc0ffee), stats.getEntries().get(0).getCookie());
        assertEquals(OFPort.of(1), stats.getEntries().get(0).getMatch().get(MatchField.IN_PORT));
        c.send(OF13.buildAggregateStatsRequest().setXid(4).setMatch(OF13.buildMatch().build()).setTableId(TableId.ALL)
                .setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).setCookieMask(U64.ZERO).build());
        OFAggregateStatsReply agg = assertInstanceOf(OFAggregateStatsReply.class, c.received().get(0));
        assertEquals(7, agg.getPacketCount().getValue());
        assertEquals(1, agg.getFlowCount());
    }

    @Test
    void barrierWaitsForThePhysicalSwitches() {
        h.net.holdBarriers();
        c.send(add(1, 10, inPortEthDst(1, "02:00:00:00:02:00"), output(OFPort.of(3))));
        c.send(OF13.buildBarrierRequest().setXid(2).build());
        assertEquals(List.of(), c.received());
        h.net.releaseBarriers();
        assertEquals(2, c.received().get(0).getXid());
    }

    @Test
    void actionSetFloodIsTranslatedAndAMissingGroupRefused() {
        c.send(add(1, 10, OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(1)).build(), output(OFPort.of(3))));
        // Fig. 6(a) of the UNO paper (a second ingress to another sNIC port) translates with its own tag...
        c.send(add(2, 10, OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(2)).build(), output(OFPort.CONTROLLER),
                OF13.actions().setField(OF13.oxms().ethDst(MacAddress.of("02:00:00:00:00:09"))), output(OFPort.of(3))));
        // ...and FLOOD in an action set spanning two switches through each switch's flood group.
        c.send(OF13.buildFlowAdd().setXid(3).setPriority(9).setMatch(OF13.buildMatch().build())
                .setInstructions(List.of(OF13.instructions().writeActions(List.of(output(OFPort.FLOOD))))).build());
        c.send(OF13.buildBarrierRequest().setXid(4).build());
        List<OFMessage> got = c.received();
        assertEquals(1, got.size());
        assertInstanceOf(OFBarrierReply.class, got.get(0));
        assertEquals(3, h.vs.virtualRuleCount());
        c.send(add(4, 10, OF13.buildMatch().build(), OF13.actions().group(OFGroup.of(3))));
        assertInstanceOf(OFBadActionErrorMsg.class, c.received().get(0));
    }

    @Test
    void physicalErrorsReachTheControllerWithTheVirtualXid() {
        h.net.failNext(OF13.errorMsgs().buildFlowModFailedErrorMsg().setCode(OFFlowModFailedCode.TABLE_FULL).build());
        c.send(add(77, 10, inPortEthDst(1, "02:00:00:00:02:00"), output(OFPort.of(2))));
        OFFlowModFailedErrorMsg e = assertInstanceOf(OFFlowModFailedErrorMsg.class, c.received().get(0));
        assertEquals(77, e.getXid());
        assertEquals(OFFlowModFailedCode.TABLE_FULL, e.getCode());
    }

    @Test
    void deleteWithSendFlowRemReportsFinalCounters() {
        c.send(OF13.buildFlowAdd().setXid(1).setPriority(5).setMatch(OF13.buildMatch().build())
                .setFlags(Set.of(OFFlowModFlags.SEND_FLOW_REM)).setInstructions(List.of()).build());
        h.net.pipeline("host").forEach(f -> h.net.count(f.getCookie(), 3, 300));
        h.net.pipeline("snic0").forEach(f -> h.net.count(f.getCookie(), 4, 400));
        c.send(OF13.buildFlowDelete().setXid(2).setTableId(TableId.ALL).setMatch(OF13.buildMatch().build())
                .setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).build());
        OFFlowRemoved r = assertInstanceOf(OFFlowRemoved.class, c.received().get(0));
        assertEquals(OFFlowRemovedReason.DELETE, r.getReason());
        assertEquals(7, r.getPacketCount().getValue());
        assertEquals(List.of(), h.net.pipeline("host"));
    }

    @Test
    void hardTimeoutExpiresTheRule() {
        c.send(OF13.buildFlowAdd().setXid(1).setPriority(5).setMatch(OF13.buildMatch().build()).setHardTimeout(2)
                .setFlags(Set.of(OFFlowModFlags.SEND_FLOW_REM)).setInstructions(List.of()).build());
        h.now += 1_000_000_000L;
        h.vs.flows().tick();
        assertEquals(1, h.vs.virtualRuleCount());
        h.now += 1_000_000_000L;
        h.vs.flows().tick();
        assertEquals(0, h.vs.virtualRuleCount());
        assertEquals(OFFlowRemovedReason.HARD_TIMEOUT, ((OFFlowRemoved) c.received().get(0)).getReason());
    }

    @Test
    void anAddPastMaxRulesIsRefusedAsByAFullTableAndChangesNothing() throws Exception {
        Harness small = new Harness(2);
        Harness.Conn conn = small.connect(false, true);
        conn.send(add(1, 10, inPortEthDst(1, "02:00:00:00:02:01"), output(OFPort.of(2))));
        conn.send(add(2, 10, inPortEthDst(1, "02:00:00:00:02:02"), output(OFPort.of(2))));
        assertEquals(List.of(), conn.received());
        conn.send(add(3, 10, inPortEthDst(1, "02:00:00:00:02:03"), output(OFPort.of(2))));
        OFFlowModFailedErrorMsg e = assertInstanceOf(OFFlowModFailedErrorMsg.class, conn.received().get(0));
        assertEquals(OFFlowModFailedCode.TABLE_FULL, e.getCode());
        assertEquals(3, e.getXid());
        assertEquals(2, small.vs.virtualRuleCount());
        // adding a rule again (same match and priority) replaces it: no room needed
        conn.send(add(4, 10, inPortEthDst(1, "02:00:00:00:02:02"), output(OFPort.of(3))));
        assertEquals(List.of(), conn.received());
        // room made by a delete is room
        conn.send(OF13.buildFlowDeleteStrict().setXid(5).setPriority(10).setMatch(inPortEthDst(1, "02:00:00:00:02:01"))
                .setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).build());
        conn.send(add(6, 10, inPortEthDst(1, "02:00:00:00:02:03"), output(OFPort.of(2))));
        assertEquals(List.of(), conn.received());
        assertEquals(2, small.vs.virtualRuleCount());
    }

    @Test
    void aRuleAddedAgainWithoutTimeoutsNoLongerExpires() {
        c.send(OF13.buildFlowAdd().setXid(1).setPriority(5).setMatch(OF13.buildMatch().build()).setHardTimeout(1)
                .setInstructions(List.of()).build());
        c.send(OF13.buildFlowAdd().setXid(2).setPriority(5).setMatch(OF13.buildMatch().build())
                .setInstructions(List.of()).build());
        h.now += 3_000_000_000L;
        h.vs.flows().tick();
        assertEquals(1, h.vs.virtualRuleCount());
    }

    @Test
    void idleTimeoutFollowsThePacketCounters() {
        c.send(OF13.buildFlowAdd().setXid(1).setPriority(5).setMatch(OF13.buildMatch().build()).setIdleTimeout(2)
                .setInstructions(List.of()).build());
        U64 cookie = h.net.pipeline("host").get(0).getCookie();
        for (int i = 1; i <= 3; i++) {
            h.net.count(cookie, i, i);
            h.now += 1_500_000_000L;
            h.vs.flows().tick();
        }
        assertEquals(1, h.vs.virtualRuleCount());
        h.now += 1_500_000_000L;
        h.vs.flows().tick();
        h.now += 1_500_000_000L;
        h.vs.flows().tick();
        assertEquals(0, h.vs.virtualRuleCount());
    }

    @Test
    void packetInCarriesTheVirtualPortAndTheVirtualCookie() {
        c.send(add(1, 0, OF13.buildMatch().build(), output(OFPort.CONTROLLER)));
        U64 physicalCookie = h.net.pipeline("snic0").get(0).getCookie();
        OFPacketIn pi = OF13.buildPacketIn().setBufferId(OFBufferId.NO_BUFFER).setTotalLen(4)
                .setReason(OFPacketInReason.NO_MATCH).setTableId(TableId.of(1)).setCookie(physicalCookie)
                .setMatch(OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(2)).build()).setData(new byte[4]).build();
        Harness.Conn passive = h.connect(true, true);
        h.vs.packetIn("snic0", PhysicalMessages.packetIn(pi));
        OFPacketIn got = assertInstanceOf(OFPacketIn.class, c.received().get(0));
        assertEquals(OFPort.of(3), got.getMatch().get(MatchField.IN_PORT));
        assertEquals(U64.of(0xc0ffee), got.getCookie());
        assertEquals(TableId.of(0), got.getTableId(), "virtual table 0 is physical table 1");
        assertEquals(List.of(), passive.received(), "service connections get async messages only when they ask");
        h.vs.packetIn("snic0", PhysicalMessages.packetIn(pi.createBuilder().setMatch(OF13.buildMatch()
                .setExact(MatchField.IN_PORT, OFPort.of(1)).build()).build()));
        assertEquals(List.of(), c.received(), "packets from the PCIe link never reach the controller");
    }

    @Test
    void asyncConfigChoosesThePacketInsAConnectionGets() {
        c.send(add(1, 0, OF13.buildMatch().build(), output(OFPort.CONTROLLER)));
        c.send(OF13.buildAsyncSet().setXid(2).setPacketInMaskEqualMaster(1).setPacketInMaskSlave(0)
                .setPortStatusMaskEqualMaster(7).setPortStatusMaskSlave(7).setFlowRemovedMaskEqualMaster(15)
                .setFlowRemovedMaskSlave(0).build());
        c.send(OF13.buildAsyncGetRequest().setXid(3).build());
        assertEquals(1, ((org.projectfloodlight.openflow.protocol.OFAsyncGetReply) c.received().get(0))
                .getPacketInMaskEqualMaster());
        U64 cookie = h.net.pipeline("snic0").get(0).getCookie();
        OFPacketIn.Builder pi = OF13.buildPacketIn().setBufferId(OFBufferId.NO_BUFFER).setTotalLen(4)
                .setTableId(TableId.of(1)).setCookie(cookie).setData(new byte[4])
                .setMatch(OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(2)).build());
        h.vs.packetIn("snic0", PhysicalMessages.packetIn(pi.setReason(OFPacketInReason.ACTION).build()));
        assertEquals(List.of(), c.received(), "ACTION (bit 1) is masked off");
        h.vs.packetIn("snic0", PhysicalMessages.packetIn(pi.setReason(OFPacketInReason.NO_MATCH).build()));
        assertInstanceOf(OFPacketIn.class, c.received().get(0));
    }

    @Test
    void packetOutFloodLeavesFromEveryOtherVirtualPort() {
        c.send(OF13.buildPacketOut().setXid(1).setBufferId(OFBufferId.NO_BUFFER).setInPort(OFPort.of(1))
                .setActions(List.of(output(OFPort.FLOOD))).setData(new byte[60]).build());
        OFPacketOut host = (OFPacketOut) h.net.takeSent("host").stream().filter(m -> m instanceof OFPacketOut)
                .findFirst().orElseThrow();
        OFPacketOut snic = (OFPacketOut) h.net.takeSent("snic0").stream().filter(m -> m instanceof OFPacketOut)
                .findFirst().orElseThrow();
        assertEquals(OFPort.of(2), host.getInPort());
        assertEquals(List.of(output(OFPort.of(3)), output(OFPort.LOCAL)), host.getActions(), "FLOOD includes LOCAL");
        assertEquals(OFPort.CONTROLLER, snic.getInPort());
        assertEquals(List.of(output(OFPort.of(2))), snic.getActions());
    }

    @Test
    void portsAreVirtualInDescriptionsStatsAndStatus() throws Exception {
        c.send(OF13.buildPortDescStatsRequest().setXid(1).build());
        OFPortDescStatsReply descs = assertInstanceOf(OFPortDescStatsReply.class, c.received().get(0));
        assertEquals(List.of(1, 2, 3, OFPort.LOCAL.getPortNumber()), descs.getEntries().stream()
                .map(d -> d.getPortNo().getPortNumber()).toList());
        assertEquals(List.of("vm0", "vm1", "w0", "LOCAL"), descs.getEntries().stream().map(d -> d.getName()).toList());
        c.send(OF13.buildPortStatsRequest().setXid(2).setPortNo(OFPort.of(3)).build());
        OFPortStatsReply stats = assertInstanceOf(OFPortStatsReply.class, c.received().get(0));
        assertEquals(OFPort.of(3), stats.getEntries().get(0).getPortNo());
        assertEquals(200, stats.getEntries().get(0).getRxPackets().getValue(), "snic0 port 2's counters");
        h.vs.ports().remove(OFPort.of(2));
        h.vs.ports().add(new PortRequest("host", null, 3L, 7L, "tenant7"));
        List<OFMessage> status = c.received();
        assertEquals(OFPortReason.DELETE, ((OFPortStatus) status.get(0)).getReason());
        OFPortStatus added = (OFPortStatus) status.get(1);
        assertEquals(OFPortReason.ADD, added.getReason());
        assertEquals("tenant7", added.getDesc().getName());
        assertEquals(OFPort.of(7), added.getDesc().getPortNo());
    }

    @Test
    void tableFeaturesSplitOverSeveralMessagesWhenLarge() {
        c.send(OF13.buildTableFeaturesStatsRequest().setXid(5).setEntries(List.of()).build());
        List<OFMessage> got = c.received();
        OFTableFeaturesStatsReply first = assertInstanceOf(OFTableFeaturesStatsReply.class, got.get(0));
        int tables = got.stream().mapToInt(m -> ((OFTableFeaturesStatsReply) m).getEntries().size()).sum();
        assertEquals(8, tables);
        assertTrue(got.size() == 1 || first.getFlags().contains(OFStatsReplyFlags.REPLY_MORE));
    }
}
