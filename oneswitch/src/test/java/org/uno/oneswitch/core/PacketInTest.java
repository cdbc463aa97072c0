package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPacketInReason;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U32;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.RecordingNetwork;
import org.uno.oneswitch.testing.RecordingNotifier;

/** A physical packet-in reaches controllers as the virtual switch's: virtual in_port and table, no register of OneSwitch's. */
class PacketInTest {
    private final List<OFMessage> toController = new ArrayList<>();
    private final VirtualSwitch vs = new VirtualSwitch(DatapathId.of(9), 8, Fixtures.topology(1),
            new RecordingNetwork(Fixtures.topology(1)), new RecordingNotifier(toController), () -> 0L, (ms, task) -> { },
            1000);

    @Test
    void theActionSetFlagIsNotShownToControllers() throws Exception {
        vs.ports().autoMap(EnumSet.of(PortSpec.Kind.VM, PortSpec.Kind.WIRE));  // virtual 1 = host:2
        toController.clear();
        // What Open vSwitch sends after a table wrote a group into the action set: reg7=1 in the packet-in's match.
        vs.packetIn("host", PhysicalMessages.packetIn(Fixtures.OF13.buildPacketIn().setBufferId(OFBufferId.NO_BUFFER)
                .setTotalLen(60).setReason(OFPacketInReason.ACTION).setTableId(TableId.of(2)).setCookie(U64.ZERO)
                .setMatch(Fixtures.OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(2))
                        .setExact(MatchField.REG7, U32.of(1)).build())
                .setData(new byte[60]).build()));
        OFPacketIn got = (OFPacketIn) toController.get(0);
        assertEquals(OFPort.of(1), got.getMatch().get(MatchField.IN_PORT));
        assertNull(got.getMatch().get(MatchField.REG7));
        assertEquals(TableId.of(1), got.getTableId());
    }
}
