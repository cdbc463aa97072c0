package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.testing.Fixtures;

/** The sealed actions' bytes against Open vSwitch's own encodings (tests/ofp-actions.at), and where they go. */
class OvsEncapActionTest {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);

    private static String hex(OFAction a) {
        ByteBuf b = Unpooled.buffer();
        a.writeTo(b);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return HexFormat.of().formatHex(out);
    }

    @Test
    void bytesAreOpenVswitchs() {
        assertEquals("ffff001000002320002e000000018847", hex(OvsEncapAction.encapMpls()));
        assertEquals("ffff001000002320002e000000000000", hex(OvsEncapAction.encapEthernet()));
        assertEquals("ffff001000002320002f00000000fffe", hex(OvsEncapAction.decap()));
        assertEquals("ffff001000002320002f000000000000", hex(OvsEncapAction.decapToEthernet()));
        // clone: a 16-byte header, then the nested actions (output:2 is 16 bytes)
        assertEquals("ffff002000002320002a000000000000" + hex(OF13.actions().output(OFPort.of(2), 0)),
                hex(OvsEncapAction.clone(List.of(OF13.actions().output(OFPort.of(2), 0)))));
    }

    @Test
    void entriesHoldingThemGetSealedCookies() throws Exception {
        PhysicalPlan plan = new PhysicalPlan(new TagSpace());
        plan.replace(java.util.Map.of(Owner.INFRASTRUCTURE, Infrastructure.of(Fixtures.topology(1), Fixtures.fig6Ports())));
        int sealed = 0;
        for (var e : plan.entries("snic0")) {
            boolean holds = PhysicalPlan.sealed(e.instructions());
            long prefix = e.cookie().getValue() & ~((1L << 48) - 1);
            assertEquals(holds ? PhysicalPlan.SEALED_COOKIE_TAG : PhysicalPlan.COOKIE_TAG, prefix, e.toString());
            assertEquals(holds, (e.cookie().getValue() & PhysicalPlan.SEALED_COOKIE_BIT) != 0);
            sealed += holds ? 1 : 0;
        }
        assertEquals(2, sealed, "the encapsulating and the decapsulating entry of the one link");
        assertFalse(PhysicalPlan.sealed(List.of(new Instruction.ApplyActions(List.of(Action.Output.to(OFPort.of(1)))))));
        assertTrue(PhysicalPlan.sealed(List.of(new Instruction.ApplyActions(List.of(
                new Action.Other(OvsEncapAction.decap()))))));
    }
}
