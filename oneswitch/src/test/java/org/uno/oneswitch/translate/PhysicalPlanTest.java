package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.ethDst;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;
import static org.uno.oneswitch.testing.Fixtures.rule;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.Render;

/** How translations of many rules combine: shared entries, stable cookies, refused ambiguities, atomicity. */
class PhysicalPlanTest {
    private final Topology topology = Fixtures.topology(1);
    private final Translator translator = new Translator(topology);
    /** V1, V2 on the host; V3, V4 on the sNIC (Fig. 6 of the UNO paper). */
    private final PortMap ports = PortMap.of(List.of(Fixtures.map(1, "host", 2, "vm0"), Fixtures.map(2, "host", 3, "vm1"),
            Fixtures.map(3, "snic0", 2, "w0"), Fixtures.map(4, "snic0", 3, "w1")));
    private final PhysicalPlan plan = new PhysicalPlan(topology);

    private List<PhysicalChange> install(VirtualRule r) throws OpenFlowException {
        return plan.replace(Map.of(r.id(), translator.translate(r, ports)));
    }

    @Test
    void crossingRuleInstallsBothHalvesAndDeletesBoth() throws Exception {
        VirtualRule r = rule(1, 10, match(inPort(1), ethDst("02:00:00:00:02:00")), apply(out(3)));
        assertEquals("""
                ADD host table=0,priority=10,in_port=2,eth_dst=02:00:00:00:02:00 actions=output:1
                ADD snic0 table=0,priority=10,in_port=1,eth_dst=02:00:00:00:02:00 actions=output:2
                """, Render.changes(install(r)));
        assertEquals(2, plan.size());
        assertEquals(1, plan.countingEntries(1).size());
        assertEquals("""
                DELETE host table=0,priority=10,in_port=2,eth_dst=02:00:00:00:02:00
                DELETE snic0 table=0,priority=10,in_port=1,eth_dst=02:00:00:00:02:00
                """, Render.changes(plan.replace(Map.of(1L, List.of()))));
        assertEquals(0, plan.size());
    }

    @Test
    void identicalHalvesFromSeveralIngressPortsAreOneEntry() throws Exception {
        VirtualRule toWire = rule(1, 10, match(ethDst("02:00:00:00:02:00")), apply(out(3)));
        install(toWire);
        // host: in_port 2 and 3; sNIC: the shared link entry and the wire (V3, drop) and V4 entries.
        assertEquals(5, plan.size());
        // A second virtual rule needing exactly the same entries shares them...
        install(rule(2, 10, match(inPort(1), ethDst("02:00:00:00:02:00")), apply(out(3))));
        assertEquals(5, plan.size());
        // ...and keeps them when the first one goes.
        List<PhysicalChange> gone = plan.replace(Map.of(1L, List.of()));
        assertEquals(3, gone.size());
        assertEquals(2, plan.size());
    }

    @Test
    void fig6aMultiIngressIsRefusedAndChangesNothing() throws Exception {
        install(rule(1, 10, match(inPort(1)), apply(out(3))));
        List<InstalledEntry> before = entries();
        TranslationConflictException sameKey = assertThrows(TranslationConflictException.class,
                () -> install(rule(2, 10, match(inPort(2)), apply(out(4)))));
        assertTrue(sameKey.getMessage().contains("different actions"), sameKey.getMessage());
        TranslationConflictException overlap = assertThrows(TranslationConflictException.class,
                () -> install(rule(3, 20, match(inPort(2), ethDst("02:00:00:00:02:00")), apply(out(4)))));
        assertTrue(overlap.getMessage().contains("flow-id tags"), overlap.getMessage());
        assertEquals(before, entries());
        // A non-overlapping rule from the other port is fine: the far switch can tell them apart by header.
        install(rule(1, 10, match(inPort(1), ethDst("02:00:00:00:02:00")), apply(out(3))));
        install(rule(4, 10, match(inPort(2), ethDst("02:00:00:00:02:01")), apply(out(4))));
    }

    @Test
    void sameActionsFromDifferentIngressPortsMayShareTheLink() throws Exception {
        install(rule(1, 10, match(inPort(1)), apply(out(3))));
        install(rule(2, 20, match(inPort(2)), apply(out(3))));
        assertEquals(4, plan.size());
    }

    @Test
    void cookiesSurviveModificationAndAreNeverReused() throws Exception {
        install(rule(1, 10, match(inPort(1)), apply(out(2))));
        InstalledEntry first = plan.entries("host").get(0);
        List<PhysicalChange> modify = install(rule(1, 10, match(inPort(1)), apply(out(OFPort.CONTROLLER))));
        assertEquals(1, modify.size());
        assertEquals(PhysicalChange.Kind.MODIFY, modify.get(0).kind());
        assertEquals(first.cookie(), modify.get(0).cookie());
        plan.replace(Map.of(1L, List.of()));
        install(rule(2, 10, match(inPort(1)), apply(out(2))));
        assertTrue(!plan.entries("host").get(0).cookie().equals(first.cookie()));
    }

    @Test
    void pipelineCrossingFromTableOneMustNotMeetAnyPortRulesOfTableZero() throws Exception {
        install(rule(1, 0, 5, FlowMatch.ANY, apply(out(OFPort.CONTROLLER))));
        VirtualRule fromTable1 = rule(2, 1, 10, match(inPort(1)), apply(out(3)));
        assertThrows(TranslationConflictException.class, () -> install(fromTable1));
        // With a table-miss that does not overlap (it is lower only by priority, but matches all) it is
        // still refused; without any table-0 catch-all the same rule translates.
        plan.replace(Map.of(1L, List.of()));
        install(fromTable1);
        assertEquals(2, plan.size());
    }

    @Test
    void removingSharedEntriesKeepsThemForTheOtherRule() throws Exception {
        install(rule(1, 10, match(ethDst("02:00:00:00:02:00")), apply(out(3))));
        install(rule(2, 11, match(inPort(3)), List.of(new Instruction.ApplyActions(List.of(out(1))))));
        int before = plan.size();
        List<PhysicalChange> gone = plan.replace(Map.of(1L, List.of()));
        assertEquals(before - gone.size(), plan.size());
        assertTrue(gone.stream().allMatch(c -> c.kind() == PhysicalChange.Kind.DELETE));
    }

    private List<InstalledEntry> entries() {
        List<InstalledEntry> all = new ArrayList<>();
        for (String s : List.of("host", "snic0")) {
            all.addAll(plan.entries(s));
        }
        return new ArrayList<>(new HashSet<>(all)).stream().sorted((a, b) -> a.toString().compareTo(b.toString()))
                .toList();
    }
}
