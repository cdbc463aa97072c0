package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.ethDst;
import static org.uno.oneswitch.testing.Fixtures.group;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.ipv4;
import static org.uno.oneswitch.testing.Fixtures.ipv4Src;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;
import static org.uno.oneswitch.testing.Fixtures.popVlan;
import static org.uno.oneswitch.testing.Fixtures.pushVlan;
import static org.uno.oneswitch.testing.Fixtures.rule;
import static org.uno.oneswitch.testing.Fixtures.setIpv4Src;
import static org.uno.oneswitch.testing.Fixtures.setVlan;
import static org.uno.oneswitch.testing.Fixtures.vlan;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.Golden;
import org.uno.oneswitch.testing.Render;

/**
 * The translation cases, one golden file each (virtual rule in, physical entries out). Tags are
 * allocated in order from 16, the first label past MPLS's own, so the files show tag 16 as group
 * 4293066768 (0xffe30010) and label 0x10.
 */
class TranslatorTest {
    private final Translator one = new Translator(Fixtures.topology(1), p -> true);
    private final PortMap ports = Fixtures.ports(1);

    private String translate(VirtualRule r) throws OpenFlowException {
        return translate(one, r, ports);
    }

    private static String translate(Translator t, VirtualRule r, PortMap ports) throws OpenFlowException {
        return Render.translation(t.translate(r, ports, new TagSpace()));
    }

    @Test
    void noIngressPortGoesToEverySwitchWithPorts() throws Exception {
        Golden.check("step1-table-miss", translate(rule(1, 0, FlowMatch.ANY, apply(out(OFPort.CONTROLLER)))));
        Golden.check("step1-drop", translate(rule(2, 5, match(ipv4(), ipv4Src("10.9.9.9")), apply())));
    }

    @Test
    void ingressPortGoesToItsSwitchOnly() throws Exception {
        Golden.check("step2-ingress-to-controller", translate(rule(1, 7, match(inPort(3)), apply(out(OFPort.CONTROLLER)))));
        Golden.check("step2-local-output", translate(rule(2, 7, match(inPort(1)), apply(out(2)))));
    }

    @Test
    void crossingRulePushesTheTagOfItsEgressPort() throws Exception {
        Golden.check("step3-vm-to-wire", translate(rule(1, 10, match(inPort(1), ethDst("02:00:00:00:02:00")),
                apply(out(3)))));
        Golden.check("step3-wire-to-vm", translate(rule(2, 10, match(inPort(3), ethDst("02:00:00:00:01:00")),
                apply(out(1)))));
    }

    @Test
    void headerRewriteHappensOnceWhereThePacketEnters() throws Exception {
        Golden.check("step3-rewrite-at-ingress", translate(rule(1, 10, match(inPort(1), ipv4(), ipv4Src("10.0.0.1")),
                apply(setIpv4Src("1.1.1.1"), out(3)))));
    }

    /** UNO paper, Table 1, virtual rule #1 (Fig. 6(a)): in_port=V1 -> output:V3, with V2 -> V4 beside it. */
    @Test
    void table1MultiIngress() throws Exception {
        TagSpace tags = new TagSpace();
        PortMap fig6 = Fixtures.fig6Ports();
        String r1 = Render.translation(one.translate(rule(1, 10, match(inPort(1)), apply(out(3))), fig6, tags));
        String r2 = Render.translation(one.translate(rule(2, 10, match(inPort(2)), apply(out(4))), fig6, tags));
        Golden.check("table1-rule1-multi-ingress", r1 + "--- the second rule of Fig. 6(a)\n" + r2);
    }

    /** UNO paper, Table 1, virtual rule #2 (Fig. 6(b)): rewrite, output to V2 (host) and V4 (sNIC). */
    @Test
    void table1MultiEgress() throws Exception {
        Golden.check("table1-rule2-multi-egress", Render.translation(one.translate(rule(1, 10,
                match(inPort(1), ipv4(), ipv4Src("10.0.0.1")), apply(setIpv4Src("1.1.1.1"), out(2), out(4))),
                Fixtures.fig6Ports(), new TagSpace())));
    }

    @Test
    void wildcardIngressIsOneRulePerSwitch() throws Exception {
        Golden.check("step4-wildcard-to-wire", translate(rule(1, 10, match(ethDst("02:00:00:00:02:00")), apply(out(3)))));
        Golden.check("step4-flood", translate(rule(2, 1, FlowMatch.ANY, apply(out(OFPort.FLOOD)))));
    }

    /** The LOCAL port is the host bridge's: reached from the sNIC over the link, matched as an in_port, flooded to. */
    @Test
    void localIsTheHostBridgesLocalPort() throws Exception {
        PortMap withLocal = ports.with(new PortMapping(OFPort.LOCAL, new PhysicalPort("host", OFPort.LOCAL), "LOCAL",
                "LOCAL"));
        TagSpace tags = new TagSpace();
        int local = OFPort.LOCAL.getPortNumber();
        Golden.check("local-port", Render.translation(one.translate(rule(1, 10, match(inPort(3)),
                apply(out(OFPort.LOCAL))), withLocal, tags)) + "--- from LOCAL\n"
                + Render.translation(one.translate(rule(2, 10, match(inPort(local)), apply(out(3))), withLocal, tags))
                + "--- FLOOD from V1\n"
                + Render.translation(one.translate(rule(3, 10, match(inPort(1)), apply(out(OFPort.FLOOD))), withLocal,
                        tags)));
    }

    /**
     * With the host as pipeline home (a meter split over two switches), the sNIC's port V3 enters the
     * pipeline on the host with a homed in_port: its rules are there, its dispatch entry on the sNIC sends
     * its packets over the link, an output to it from its own packets is dropped by the guard, IN_PORT
     * sends them back, and sends from the host to several sNIC ports go port by port.
     */
    @Test
    void homedPortsRunThePipelineOnTheHome() throws Exception {
        PortMap homed = ports.withPipelineHome("host");
        TagSpace tags = new TagSpace();
        Golden.check("pipeline-home", Render.translation(one.translate(rule(1, 10, match(inPort(3)),
                apply(out(OFPort.IN_PORT), out(1))), homed, tags))
                + "--- FLOOD without in_port\n"
                + Render.translation(one.translate(rule(2, 1, FlowMatch.ANY, apply(out(OFPort.FLOOD))), homed, tags))
                + "--- IN_PORT in an action set\n"
                + Render.translation(one.translate(rule(3, 5, FlowMatch.ANY, List.of(new Instruction.WriteActions(List.of(out(OFPort.IN_PORT))))), homed, tags))
                + "--- infrastructure\n"
                + Render.translation(one.infrastructure(homed, tags)));
    }

    /** output:TABLE in a rule runs the pipeline again from the first virtual table, as on one bridge. */
    @Test
    void tableRunsThePipelineAgain() throws Exception {
        Golden.check("output-table", translate(rule(1, 1, 10, match(inPort(1)), apply(out(OFPort.TABLE))))
                + "--- in an action set\n" + translate(rule(2, 1, 10, match(inPort(3)),
                        List.of(new Instruction.WriteActions(List.of(out(OFPort.TABLE)))))));
    }

    @Test
    void outputsBetweenRewritesShareOneTag() throws Exception {
        Golden.check("segments", translate(two(), rule(1, 10, match(inPort(1)), apply(out(3), out(4), out(2),
                pushVlan(), setVlan(7), out(3))), Fixtures.ports(2)));
    }

    /** The dispatch table: packets of virtual ports enter the pipeline, markers travel, the rest is dropped. */
    @Test
    void onlyVirtualPortsEnterThePipeline() throws Exception {
        Golden.check("dispatch-table", Render.translation(two().infrastructure(Fixtures.ports(2), new TagSpace())));
    }

    /**
     * With the tags for sets of several ports used up, a set is sent one copy per port (each port's
     * own tag), in an action list and in the flood group: the same packets leave the same ports.
     */
    @Test
    void setsWithoutATagAreSentPortByPort() throws Exception {
        TagSpace singlePortsOnly = new TagSpace(Layout.FIRST_TAG, Layout.FIRST_TAG + 9, 10);
        PortMap fig6 = Fixtures.fig6Ports();
        Golden.check("sets-port-by-port", Render.translation(one.translate(rule(1, 10, match(inPort(1)),
                apply(out(2), out(3), out(4))), fig6, singlePortsOnly)) + "--- FLOOD in an action set\n"
                + Render.translation(one.translate(rule(2, 10, match(inPort(2)),
                        List.of(new Instruction.WriteActions(List.of(out(OFPort.FLOOD))))), fig6,
                        singlePortsOnly)));
    }

    @Test
    void twoSnicsRouteThroughTheHost() throws Exception {
        Golden.check("two-snics-transit", translate(two(), rule(1, 10, match(inPort(3)), apply(out(4))), Fixtures.ports(2)));
        Golden.check("two-snics-flood", translate(two(), rule(2, 10, match(inPort(1)), apply(out(OFPort.ALL))),
                Fixtures.ports(2)));
    }

    @Test
    void pipelinesStayOnTheIngressSwitch() throws Exception {
        Golden.check("goto-table", translate(rule(1, 0, 10, match(inPort(1)), List.of(
                new Instruction.ApplyActions(List.of(setIpv4Src("1.1.1.1"))),
                new Instruction.WriteMetadata(U64.of(5), U64.of(0xff)), new Instruction.GotoTable(1)))));
        Golden.check("pop-then-remote-output", translate(rule(2, 1, 10, match(vlan(5)), List.of(
                new Instruction.ApplyActions(List.of(popVlan(), out(3)))))));
    }

    @Test
    void actionSetKeepsTheOutputThatTakesEffect() throws Exception {
        Golden.check("write-actions", translate(rule(1, 0, 10, match(inPort(1)), List.of(
                new Instruction.WriteActions(List.of(out(2), setIpv4Src("1.1.1.1"), out(3)))))));
        // A local output in an action set is a port group, so that outputs written by later tables replace it.
        Golden.check("write-actions-local", translate(rule(2, 1, 10, match(inPort(1)), List.of(
                new Instruction.WriteActions(List.of(out(2)))))));
    }

    @Test
    void floodInAnActionSetOrABucketIsTheFloodGroup() throws Exception {
        // One group per switch: a bucket per local port (Open vSwitch skips the in_port) and one for the others' tag.
        Golden.check("write-actions-flood", translate(two(), rule(1, 1, match(inPort(1)), List.of(
                new Instruction.WriteActions(List.of(out(OFPort.FLOOD))))), Fixtures.ports(2)));
        VirtualGroup all = new VirtualGroup(9, OFGroupType.SELECT, List.of(
                new Bucket(1, OFPort.ANY, OFGroup.ANY, List.of(setIpv4Src("1.1.1.1"), out(OFPort.ALL))),
                new Bucket(1, OFPort.ANY, OFGroup.ANY, List.of(out(1)))));
        Golden.check("group-bucket-all", Render.translation(one.translate(all, ports, new TagSpace())));
    }

    @Test
    void aGroupInTheActionSetWinsOverALaterTablesOutput() throws Exception {
        // Table 0 writes a group and goes on: it sets the flag. Table 1 writes an output: one entry per flag value,
        // the output left out where the action set holds a group. Table 2 clears the action set: it resets the flag.
        Golden.check("action-set-flag-group", translate(rule(1, 0, 10, match(inPort(1)), List.of(
                new Instruction.WriteActions(List.of(group(7))), new Instruction.GotoTable(1)))));
        Golden.check("action-set-flag-output", translate(rule(2, 1, 10, match(inPort(1)), List.of(
                new Instruction.ApplyActions(List.of(out(2))),
                new Instruction.WriteActions(List.of(setIpv4Src("1.1.1.1"), out(3))), new Instruction.GotoTable(2)))));
        Golden.check("action-set-flag-clear", translate(rule(3, 2, 10, FlowMatch.ANY, List.of(
                new Instruction.ClearActions(), new Instruction.GotoTable(3)))));
    }

    @Test
    void groupsAreLocalisedOnEverySwitch() throws Exception {
        VirtualGroup g = new VirtualGroup(7, OFGroupType.SELECT, List.of(
                new Bucket(1, OFPort.ANY, OFGroup.ANY, List.of(out(1))),
                new Bucket(2, OFPort.ANY, OFGroup.ANY, List.of(setIpv4Src("1.1.1.1"), out(3)))));
        Golden.check("group-select", Render.translation(one.translate(g, ports, new TagSpace())));
        VirtualGroup ff = new VirtualGroup(8, OFGroupType.FF, List.of(
                new Bucket(0, OFPort.of(3), OFGroup.ANY, List.of(out(3))),
                new Bucket(0, OFPort.of(2), OFGroup.ANY, List.of(out(2)))));
        Golden.check("group-fast-failover", Render.translation(one.translate(ff, ports, new TagSpace())));
        Golden.check("group-user", translate(rule(1, 10, match(inPort(1)), apply(group(7)))));
    }

    @Test
    void unmappedPortsTranslateToNothing() throws Exception {
        assertEquals(Translation.EMPTY, one.translate(rule(1, 10, match(inPort(9)), apply(out(3))), ports, new TagSpace()));
        assertEquals("host table=1 priority=10 in_port=2 actions=drop [counting]\n",
                translate(rule(2, 10, match(inPort(1)), apply(out(9)))));
    }

    @Test
    void aMeterStaysWithTheRuleOnTheSwitchWhereItsPacketsEnter() throws Exception {
        assertEquals("host table=1 priority=10 in_port=2 actions=meter:7 [counting]\n",
                translate(rule(1, 10, match(inPort(1)), List.of(new Instruction.Meter(7)))));
    }

    @Test
    void theValidatorRefusesWhatNoTranslationExpresses() throws Exception {
        assertThrows(BadActionException.class, () -> RuleValidator.rule(rule(1, 1, FlowMatch.ANY, apply(out(OFPort.ANY)))));
        assertThrows(BadActionException.class, () -> RuleValidator.actions(List.of(out(OFPort.ANY))));
        // past Open vSwitch's ports, as it refuses them (BAD_OUT_PORT); port 0 and TABLE it takes in a rule
        assertThrows(BadActionException.class, () -> RuleValidator.actions(List.of(out(0xff00))));
        assertThrows(BadActionException.class, () -> RuleValidator.actions(List.of(out(OFPort.MAX))));
        RuleValidator.actions(List.of(out(0), out(0xfeff), out(OFPort.TABLE), out(OFPort.LOCAL)));
        RuleValidator.actions(List.of(out(OFPort.NORMAL)));
        RuleValidator.rule(rule(1, 1, FlowMatch.ANY, apply(out(OFPort.NORMAL))));
        RuleValidator.group(new VirtualGroup(3, OFGroupType.ALL, List.of(Bucket.of(List.of(out(OFPort.NORMAL))))));
    }

    @Test
    void normalIsOneLearningSwitchAcrossTheSwitches() throws Exception {
        // NORMAL's tables and groups, once for every rule that outputs to NORMAL: on each switch the NORMAL group, the
        // same-address check, the entry per local port, learning, the check that announces a new or moved source over
        // the link, the output per virtual port (the flood group on a miss); on every switch the notices' entries.
        Golden.check("normal-tables", Render.translation(two().normal(Fixtures.ports(2), new TagSpace())));
        // A rule's own entries only point at the NORMAL group: in an action list, an action set, a bucket.
        assertEquals("host table=1 priority=0 any actions=group:4292935674 [counting]\n"
                + "snic0 table=1 priority=0 any actions=group:4292935674 [counting]\n"
                + "snic1 table=1 priority=0 any actions=group:4292935674 [counting]\n",
                translate(two(), rule(1, 0, FlowMatch.ANY, apply(out(OFPort.NORMAL))), Fixtures.ports(2)));
        assertEquals("host table=1 priority=1 in_port=2 actions=write_actions(group:4292935674) [counting]\n",
                translate(two(), rule(2, 1, match(inPort(1)), List.of(
                        new Instruction.WriteActions(List.of(out(OFPort.NORMAL))))), Fixtures.ports(2)));
        VirtualGroup g = new VirtualGroup(9, OFGroupType.ALL, List.of(Bucket.of(List.of(out(OFPort.NORMAL)))));
        Translation bucket = two().translate(g, Fixtures.ports(2), new TagSpace());
        assertTrue(Render.translation(bucket).contains("host group=9 type=all bucket(group:4292935674)"));
        assertTrue(Translator.outputsToNormal(bucket));
        assertFalse(Translator.outputsToNormal(two().translate(rule(3, 1, FlowMatch.ANY, apply(out(OFPort.FLOOD))),
                Fixtures.ports(2), new TagSpace())));
    }

    private static Translator two() {
        return new Translator(Fixtures.topology(2), p -> true);
    }
}
