package org.uno.oneswitch.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.OF13;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMeterConfigStatsReply;
import org.projectfloodlight.openflow.protocol.OFMeterFeatures;
import org.projectfloodlight.openflow.protocol.OFMeterFeaturesStatsReply;
import org.projectfloodlight.openflow.protocol.OFMeterFlags;
import org.projectfloodlight.openflow.protocol.OFMeterMod;
import org.projectfloodlight.openflow.protocol.OFMeterModCommand;
import org.projectfloodlight.openflow.protocol.OFMeterModFailedCode;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPacketInReason;
import org.projectfloodlight.openflow.protocol.OFType;
import org.projectfloodlight.openflow.protocol.errormsg.OFMeterModFailedErrorMsg;
import org.projectfloodlight.openflow.protocol.instruction.OFInstruction;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionMeter;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.core.SwitchTables;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.stats.MeterFeatures;

/**
 * Meters of the virtual switch over in-memory physical switches: kept where one switch meters all
 * their packets, and with the host as pipeline home where their rules' packets enter on two.
 */
class MeterTest {
    private static final long ALL_METERS = 0xffffffffL;
    private final Harness h;
    private final Harness.Conn c;

    MeterTest() throws Exception {
        h = new Harness();
        c = h.connect(false, true);
        // The sNIC takes fewer meters than the host: the virtual switch offers the smaller limits.
        h.vs.switchConnected("host", reported(200, 8));
        h.vs.switchConnected("snic0", reported(100, 4));
        h.net.takeSent("host");
        h.net.takeSent("snic0");
    }

    private static SwitchTables reported(long maxMeter, int maxBands) {
        MeterFeatures f = new MeterFeatures(maxMeter, 1 << 1, 0xf, maxBands, 0);
        return new SwitchTables(List.of(), List.of(), List.of(), Optional.of(f));
    }

    private static OFMeterMod meter(long xid, OFMeterModCommand command, long id, long kbps) {
        return OF13.buildMeterMod().setXid(xid).setCommand(command).setMeterId(id)
                .setFlags(Set.of(OFMeterFlags.KBPS, OFMeterFlags.STATS))
                .setMeters(List.of(OF13.meterBands().drop(kbps, 0))).build();
    }

    private static OFFlowMod metered(long xid, Match m, long meter) {
        return OF13.buildFlowAdd().setXid(xid).setPriority(10).setMatch(m).setInstructions(List.of(
                OF13.instructions().buildMeter().setMeterId(meter).build(),
                OF13.instructions().applyActions(List.of(OF13.actions().output(OFPort.of(2), 0xffff))))).build();
    }

    private static Match inPort(int port) {
        return OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(port)).build();
    }

    private List<OFMessage> barrier() {
        c.send(OF13.buildBarrierRequest().setXid(999).build());
        return c.received();
    }

    private List<OFMeterMod> meterMods(String switchId) {
        return h.net.takeSent(switchId).stream().filter(OFMeterMod.class::isInstance).map(OFMeterMod.class::cast)
                .toList();
    }

    @Test
    void theFeaturesAreTheLeastOfTheSwitches() {
        c.send(OF13.buildMeterFeaturesStatsRequest().setXid(1).build());
        OFMeterFeatures f = assertInstanceOf(OFMeterFeaturesStatsReply.class, c.received().get(0)).getFeatures();
        assertEquals(100, f.getMaxMeter());
        assertEquals(4, f.getMaxBands());
        assertEquals(1 << 1, f.getBandTypes());
        c.send(meter(2, OFMeterModCommand.ADD, 150, 1000));
        assertEquals(OFMeterModFailedCode.OUT_OF_METERS,
                assertInstanceOf(OFMeterModFailedErrorMsg.class, c.received().get(0)).getCode());
    }

    @Test
    void aMeterIsOnEverySwitchAndRulesOnOneSwitchApplyIt() {
        c.send(meter(1, OFMeterModCommand.ADD, 5, 1000));
        assertEquals(List.of(OFType.BARRIER_REPLY), barrier().stream().map(OFMessage::getType).toList());
        assertEquals(OFMeterModCommand.ADD, meterMods("host").get(0).getCommand());
        assertEquals(OFMeterModCommand.ADD, meterMods("snic0").get(0).getCommand());

        c.send(metered(2, inPort(1), 5));
        c.send(metered(3, inPort(2), 5));
        assertEquals(List.of(OFType.BARRIER_REPLY), barrier().stream().map(OFMessage::getType).toList());
        assertEquals(2, h.vs.virtualRuleCount());
        for (OFFlowMod fm : h.net.pipeline("host")) {
            OFInstruction first = fm.getInstructions().get(0);
            assertEquals(5, assertInstanceOf(OFInstructionMeter.class, first).getMeterId());
        }
        assertEquals(List.of(), h.net.pipeline("snic0"));

        c.send(OF13.buildMeterConfigStatsRequest().setXid(4).setMeterId(ALL_METERS).build());
        OFMeterConfigStatsReply config = assertInstanceOf(OFMeterConfigStatsReply.class, c.received().get(0));
        assertEquals(1, config.getEntries().size());
        assertEquals(List.of(OF13.meterBands().drop(1000, 0)), config.getEntries().get(0).getEntries());
    }

    @Test
    void aMeterWhoseRulesEnterOnTwoSwitchesRunsTheirPipelineOnTheHost() {
        c.send(meter(1, OFMeterModCommand.ADD, 5, 1000));
        c.send(metered(2, inPort(1), 5));
        barrier();
        assertTrue(h.vs.ports().current().pipelineHome().isEmpty());
        // In port 3 is on the sNIC: its packets now run the pipeline on the host, through the one bucket there.
        c.send(metered(3, inPort(3), 5));
        assertEquals(List.of(OFType.BARRIER_REPLY), barrier().stream().map(OFMessage::getType).toList());
        assertEquals(Optional.of("host"), h.vs.ports().current().pipelineHome());
        assertEquals(2, meteredEntries("host"));
        assertEquals(0, meteredEntries("snic0"));
        // A packet-in of the sNIC's port now comes from the host, with the port's homed number: the controller
        // sees the virtual port.
        OFPacketIn pi = OF13.buildPacketIn().setBufferId(OFBufferId.NO_BUFFER).setTotalLen(4)
                .setReason(OFPacketInReason.ACTION).setTableId(TableId.of(1)).setData(new byte[4])
                .setMatch(OF13.buildMatch().setExact(MatchField.IN_PORT, PortMap.homedNumber(OFPort.of(3))).build())
                .build();
        h.vs.packetIn("host", PhysicalMessages.packetIn(pi));
        assertEquals(OFPort.of(3), assertInstanceOf(OFPacketIn.class, c.received().get(0)).getMatch()
                .get(MatchField.IN_PORT));
        // The rule on the sNIC's port goes: each switch meters its own ports' packets again.
        c.send(OF13.buildFlowDeleteStrict().setXid(4).setPriority(10).setMatch(inPort(3)).build());
        barrier();
        assertTrue(h.vs.ports().current().pipelineHome().isEmpty());
        assertEquals(1, meteredEntries("host"));
        // No in_port: packets enter at both switches.
        c.send(metered(5, OF13.buildMatch().build(), 5));
        barrier();
        assertEquals(Optional.of("host"), h.vs.ports().current().pipelineHome());
        assertEquals(2, meteredEntries("host"));
        assertEquals(0, meteredEntries("snic0"));
        c.send(metered(6, inPort(1), 9));
        assertEquals(OFMeterModFailedCode.UNKNOWN_METER,
                assertInstanceOf(OFMeterModFailedErrorMsg.class, c.received().get(0)).getCode());
        assertEquals(2, h.vs.virtualRuleCount());
    }

    /** The virtual rules' entries on {@code switchId} that apply a meter. */
    private long meteredEntries(String switchId) {
        return h.net.pipeline(switchId).stream().filter(fm -> fm.getTableId().getValue() == 1)
                .filter(fm -> fm.getInstructions().stream().anyMatch(i -> i instanceof OFInstructionMeter)).count();
    }

    @Test
    void deletingAMeterDeletesTheRulesThatApplyIt() {
        c.send(meter(1, OFMeterModCommand.ADD, 5, 1000));
        c.send(metered(2, inPort(1), 5));
        barrier();
        h.net.takeSent("host");
        h.net.takeSent("snic0");
        c.send(meter(3, OFMeterModCommand.DELETE, 5, 0));
        barrier();
        assertEquals(0, h.vs.virtualRuleCount());
        assertEquals(List.of(), h.net.pipeline("host"));
        assertEquals(OFMeterModCommand.DELETE, meterMods("snic0").get(0).getCommand());
        c.send(OF13.buildMeterConfigStatsRequest().setXid(4).setMeterId(ALL_METERS).build());
        assertTrue(assertInstanceOf(OFMeterConfigStatsReply.class, c.received().get(0)).getEntries().isEmpty());
        c.send(meter(5, OFMeterModCommand.MODIFY, 5, 10));
        assertEquals(OFMeterModFailedCode.UNKNOWN_METER,
                assertInstanceOf(OFMeterModFailedErrorMsg.class, c.received().get(0)).getCode());
    }

    @Test
    void aMeterABridgeRefusesIsNotKeptAndTheControllerHearsWhyOnce() {
        h.net.failNext(OF13.errorMsgs().buildMeterModFailedErrorMsg().setCode(OFMeterModFailedCode.BAD_RATE).build());
        c.send(meter(7, OFMeterModCommand.ADD, 5, 0));
        List<OFMessage> got = barrier();
        OFMeterModFailedErrorMsg e = assertInstanceOf(OFMeterModFailedErrorMsg.class, got.get(0));
        assertEquals(7, e.getXid());
        assertEquals(OFMeterModFailedCode.BAD_RATE, e.getCode());
        assertEquals(OFType.BARRIER_REPLY, got.get(got.size() - 1).getType());
        assertEquals(1, got.stream().filter(OFMeterModFailedErrorMsg.class::isInstance).count());
        c.send(OF13.buildMeterConfigStatsRequest().setXid(8).setMeterId(ALL_METERS).build());
        assertTrue(assertInstanceOf(OFMeterConfigStatsReply.class, c.received().get(0)).getEntries().isEmpty(),
                "the refused meter is gone");
        c.send(metered(9, inPort(1), 5));
        assertEquals(OFMeterModFailedCode.UNKNOWN_METER,
                assertInstanceOf(OFMeterModFailedErrorMsg.class, c.received().get(0)).getCode());
    }

    @Test
    void aReconnectingSwitchGetsTheMetersItLacksAndLosesStrayOnes() {
        c.send(meter(1, OFMeterModCommand.ADD, 5, 1000));
        barrier();
        h.net.takeSent("snic0");
        h.vs.switchConnected("snic0", reported(100, 4));
        assertEquals(List.of(OFMeterModCommand.ADD), meterMods("snic0").stream().map(OFMeterMod::getCommand).toList());
        // Meter 5 as Open vSwitch reports it (a burst size of its own, unused without BURST): left alone.
        SwitchTables found = new SwitchTables(List.of(), List.of(), List.of(
                new VirtualMeter(5, Set.of(OFMeterFlags.KBPS, OFMeterFlags.STATS),
                        List.of(OF13.meterBands().drop(1000, 1000))),
                new VirtualMeter(7, Set.of(OFMeterFlags.PKTPS), List.of(OF13.meterBands().drop(10, 0)))),
                reported(100, 4).meterFeatures());
        h.vs.switchConnected("snic0", found);
        List<OFMeterMod> sent = meterMods("snic0");
        assertEquals(List.of(OFMeterModCommand.DELETE), sent.stream().map(OFMeterMod::getCommand).toList());
        assertEquals(7, sent.get(0).getMeterId());
    }
}
