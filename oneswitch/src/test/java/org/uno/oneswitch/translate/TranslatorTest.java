package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.ethDst;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.ipv4;
import static org.uno.oneswitch.testing.Fixtures.ipv4Src;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;
import static org.uno.oneswitch.testing.Fixtures.rule;
import static org.uno.oneswitch.testing.Fixtures.setIpv4Src;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFBadActionCode;
import org.projectfloodlight.openflow.protocol.OFBadInstructionCode;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.BadInstructionException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.Golden;
import org.uno.oneswitch.testing.Render;

/** The §3.3.1 translation cases, one golden file each (virtual rule in, physical rules out). */
class TranslatorTest {
    private final Translator one = new Translator(Fixtures.topology(1));
    private final PortMap ports = Fixtures.ports(1);

    private String translate(VirtualRule r) throws OpenFlowException {
        return Render.rules(one.translate(r, ports));
    }

    @Test
    void step1NoIngressNoEgressGoesToEverySwitch() throws Exception {
        Golden.check("step1-table-miss", translate(rule(1, 0, FlowMatch.ANY, apply(out(OFPort.CONTROLLER)))));
        Golden.check("step1-drop", translate(rule(2, 5, match(ipv4(), ipv4Src("10.9.9.9")), apply())));
    }

    @Test
    void step2IngressOnlyGoesToTheIngressSwitch() throws Exception {
        Golden.check("step2-ingress-to-controller", translate(rule(1, 7, match(inPort(3)), apply(out(OFPort.CONTROLLER)))));
        Golden.check("step2-local-output", translate(rule(2, 7, match(inPort(1)), apply(out(2)))));
    }

    @Test
    void step3CrossingRuleBecomesAPathOverThePcieLink() throws Exception {
        Golden.check("step3-vm-to-wire", translate(rule(1, 10, match(inPort(1), ethDst("02:00:00:00:02:00")),
                apply(out(3)))));
        Golden.check("step3-wire-to-vm", translate(rule(2, 10, match(inPort(3), ethDst("02:00:00:00:01:00")),
                apply(out(1)))));
    }

    @Test
    void step3HeaderRewriteHappensOnTheEgressSwitchOnly() throws Exception {
        Golden.check("step3-rewrite-at-egress", translate(rule(1, 10, match(inPort(1), ipv4(), ipv4Src("10.0.0.1")),
                apply(setIpv4Src("1.1.1.1"), out(3)))));
    }

    @Test
    void step3MultipleEgressCopiesOntoTheLinkBeforeLocalActions() throws Exception {
        // Table 1's rule #2 of the UNO paper: rewrite, output to a port on the ingress switch and one on the sNIC.
        Golden.check("step3-multi-egress", translate(rule(1, 10, match(inPort(1), ipv4(), ipv4Src("10.0.0.1")),
                apply(setIpv4Src("1.1.1.1"), out(2), out(3)))));
    }

    @Test
    void step4WildcardIngressIsExpandedOverTheVirtualPorts() throws Exception {
        Golden.check("step4-wildcard-to-wire", translate(rule(1, 10, match(ethDst("02:00:00:00:02:00")), apply(out(3)))));
        Golden.check("step4-flood", translate(rule(2, 1, FlowMatch.ANY, apply(out(OFPort.FLOOD)))));
    }

    @Test
    void twoSnicsRouteThroughTheHost() throws Exception {
        Translator two = new Translator(Fixtures.topology(2));
        Golden.check("two-snics-transit", Render.rules(two.translate(rule(1, 10, match(inPort(3)), apply(out(4))),
                Fixtures.ports(2))));
        Golden.check("two-snics-flood", Render.rules(two.translate(rule(2, 10, match(inPort(1)),
                apply(out(OFPort.ALL))), Fixtures.ports(2))));
    }

    @Test
    void unmappedPortsTranslateToNothing() throws Exception {
        assertEquals(List.of(), one.translate(rule(1, 10, match(inPort(9)), apply(out(3))), ports));
        assertEquals("host table=0 priority=10 in_port=2 actions=drop [counting, local]\n",
                translate(rule(2, 10, match(inPort(1)), apply(out(9)))));
    }

    @Test
    void goToTableStaysOnTheIngressSwitch() throws Exception {
        Golden.check("goto-table", translate(rule(1, 0, 10, match(inPort(1)), List.of(
                new Instruction.ApplyActions(List.of(setIpv4Src("1.1.1.1"))), new Instruction.GotoTable(1)))));
    }

    @Test
    void refusesWhatItCannotTranslateYet() {
        BadActionException group = assertThrows(BadActionException.class, () -> one.translate(rule(1, 1,
                FlowMatch.ANY, apply(new Action.Group(OFGroup.of(1)))), ports));
        assertEquals(OFBadActionCode.BAD_OUT_GROUP, group.code());
        BadInstructionException meter = assertThrows(BadInstructionException.class, () -> one.translate(rule(1, 1,
                FlowMatch.ANY, List.of(new Instruction.Meter(1))), ports));
        assertEquals(OFBadInstructionCode.UNSUP_INST, meter.code());
        assertThrows(BadActionException.class, () -> one.translate(rule(1, 1, FlowMatch.ANY,
                apply(out(OFPort.NORMAL))), ports));
        TranslationConflictException write = assertThrows(TranslationConflictException.class, () -> one.translate(
                rule(1, 1, match(inPort(1)), List.of(new Instruction.WriteActions(List.of(out(3))))), ports));
        assertTrue(write.getMessage().contains("write_actions"));
    }
}
