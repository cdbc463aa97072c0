package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.action.OFActionOutput;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionApplyActions;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionGotoTable;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.testing.StateFixture;
import org.uno.oneswitch.translate.Layout;

/**
 * The virtual switch has a LOCAL port, as one Open vSwitch bridge has: the host bridge's. Rules
 * match it and output to it from any switch, and FLOOD includes it.
 */
class LocalPortTest {
    private final StateFixture f = new StateFixture();

    LocalPortTest() throws Exception {
    }

    @Test
    void localIsTheHostBridgesLocalPort() {
        assertEquals(new PhysicalPort("host", OFPort.LOCAL), f.vs.ports().current().physical(OFPort.LOCAL).orElseThrow());
        assertTrue(f.net.flows("host").stream().anyMatch(m -> m.getTableId().getValue() == Layout.DISPATCH_TABLE
                        && OFPort.LOCAL.equals(m.getMatch().get(MatchField.IN_PORT))
                        && m.getInstructions().stream().anyMatch(i -> i instanceof OFInstructionGotoTable)),
                "the host's dispatch table sends LOCAL's packets into the pipeline");
    }

    @Test
    void aPacketFromTheSnicReachesLocalOverTheLinkAndLocalsPacketsRunTheHostsPipeline() throws Exception {
        f.add(0, 10, match(inPort(3)), apply(out(OFPort.LOCAL)));   // V3 is snic0:2
        f.add(0, 10, match(inPort(OFPort.LOCAL.getPortNumber())), apply(out(3)));

        List<OFFlowMod> deliveries = f.net.flows("host").stream().filter(m -> m.getTableId().getValue()
                == Layout.DISPATCH_TABLE && m.getMatch().get(MatchField.MPLS_LABEL) != null).toList();
        assertEquals(List.of(OFPort.LOCAL), deliveries.stream().flatMap(m -> outputs(m).stream()).toList(),
                "the host delivers the snic0 packet's flow id to its LOCAL port");
        assertTrue(f.net.pipeline("host").stream().anyMatch(m -> OFPort.LOCAL.equals(m.getMatch().get(MatchField.IN_PORT))),
                "in_port=LOCAL is matched on the host");
    }

    @Test
    void floodIncludesLocalButNotForItsOwnPackets() throws Exception {
        f.add(0, 10, match(inPort(1)), apply(out(OFPort.FLOOD)));
        f.add(0, 10, match(inPort(OFPort.LOCAL.getPortNumber())), apply(out(OFPort.FLOOD)));
        assertTrue(outputsOfRule(OFPort.of(2)).contains(OFPort.LOCAL), "V1's flood reaches LOCAL");
        assertTrue(!outputsOfRule(OFPort.LOCAL).contains(OFPort.LOCAL) && outputsOfRule(OFPort.LOCAL)
                .containsAll(List.of(OFPort.of(2), OFPort.of(3))), "LOCAL's flood reaches the others only");
    }

    /** The outputs of the host's pipeline entry for physical in_port {@code in}. */
    private List<OFPort> outputsOfRule(OFPort in) {
        return f.net.pipeline("host").stream().filter(m -> in.equals(m.getMatch().get(MatchField.IN_PORT)))
                .flatMap(m -> outputs(m).stream()).toList();
    }

    private static List<OFPort> outputs(OFFlowMod m) {
        return m.getInstructions().stream().filter(i -> i instanceof OFInstructionApplyActions)
                .flatMap(i -> ((OFInstructionApplyActions) i).getActions().stream())
                .filter(a -> a instanceof OFActionOutput).map(a -> ((OFActionOutput) a).getPort()).toList();
    }
}
