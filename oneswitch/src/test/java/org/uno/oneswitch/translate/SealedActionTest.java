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
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.testing.Fixtures;

/** The sealed actions' bytes against Open vSwitch's own encodings (tests/ofp-actions.at), and where they go. */
class SealedActionTest {
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
        assertEquals("ffff001000002320002e000000018847", hex(SealedAction.encapMpls()));
        assertEquals("ffff001000002320002e000000000000", hex(SealedAction.encapEthernet()));
        assertEquals("ffff001000002320002f00000000fffe", hex(SealedAction.decap()));
        assertEquals("ffff001000002320002f000000000000", hex(SealedAction.decapToEthernet()));
        // clone: a 16-byte header, then the nested actions (output:2 is 16 bytes)
        assertEquals("ffff002000002320002a000000000000" + hex(OF13.actions().output(OFPort.of(2), 0)),
                hex(SealedAction.clone(List.of(OF13.actions().output(OFPort.of(2), 0)))));
    }

    @Test
    void learnBytesAreOpenVswitchs() {
        // As `ovs-ofctl parse-actions OpenFlow13` reads them back: learn(table=249,hard_timeout=300,priority=1,
        // cookie=0x554fffffffffffff,NXM_OF_VLAN_TCI[0..11],NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],
        // load:NXM_NX_REG3[0..19]->NXM_NX_REG4[0..19])
        assertEquals("ffff00500000232000100000012c0001554fffffffffffff0000f90000000000000c0000080200000000080200"
                + "0000300000040600000000020600000814000106040000000108040000000000000000", hex(SealedAction.learn("x",
                249, 1, 300, 0x554fffffffffffffL, List.of(
                        new SealedAction.LearnSpec(false, 0x802, 0, 0x802, 0, 12),
                        new SealedAction.LearnSpec(false, 0x406, 0, 0x206, 0, 48),
                        new SealedAction.LearnSpec(true, 0x00010604L, 0, 0x00010804L, 0, 20)))));
    }

    /**
     * A port's dispatch entry becomes sealed when its port is homed (it encapsulates): it needs a sealed cookie,
     * sent with an add since a modify keeps the switch's cookie, or the switch's flow dump would hold an entry
     * openflowj cannot read (found by restarting OneSwitch with a pipeline home); and a plain one when it is not.
     */
    @Test
    void anEntryThatBecomesSealedGetsASealedCookieByAnAdd() throws Exception {
        PhysicalPlan plan = new PhysicalPlan(new TagSpace());
        Translator t = new Translator(Fixtures.topology(1), p -> true);
        PortMap ports = Fixtures.ports(1);
        plan.replace(java.util.Map.of(Owner.INFRASTRUCTURE, t.infrastructure(ports, plan.tags())));
        for (PortMap next : List.of(ports.withPipelineHome("host"), ports)) {
            PlanDiff diff = plan.replace(java.util.Map.of(Owner.INFRASTRUCTURE, t.infrastructure(next, plan.tags())));
            PhysicalChange dispatch = diff.inOrder().stream().filter(c -> c instanceof PhysicalChange)
                    .map(c -> (PhysicalChange) c).filter(c -> c.key().switchId().equals("snic0")
                            && c.key().key().priority() == Layout.PIPELINE_PRIORITY).findFirst().orElseThrow();
            assertEquals(PhysicalChange.Kind.ADD, dispatch.kind());
            assertEquals(next.pipelineHome().isPresent(), PhysicalPlan.sealed(dispatch.instructions()));
            assertEquals(next.pipelineHome().isPresent(),
                    (dispatch.cookie().getValue() & PhysicalPlan.SEALED_COOKIE_BIT) != 0);
        }
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
                new Action.Other(SealedAction.decap()))))));
    }
}
