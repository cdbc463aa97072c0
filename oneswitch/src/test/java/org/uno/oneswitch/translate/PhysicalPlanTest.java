package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.ethDst;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;
import static org.uno.oneswitch.testing.Fixtures.rule;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.Render;

/** How translations combine: shared deliveries, stable cookies, tags freed, atomicity, retirement. */
class PhysicalPlanTest {
    private final Topology topology = Fixtures.topology(1);
    private final Translator translator = new Translator(topology, p -> true);
    private final PortMap ports = Fixtures.fig6Ports();
    private final TagSpace tags = new TagSpace();
    private final PhysicalPlan plan = new PhysicalPlan(tags);

    private PlanDiff install(VirtualRule r) throws OpenFlowException {
        return plan.replace(Map.of(Owner.rule(r.id()), translator.translate(r, ports, tags)));
    }

    private PlanDiff remove(long id) throws TranslationConflictException {
        return plan.replace(Map.of(Owner.rule(id), Translation.EMPTY));
    }

    @Test
    void crossingRuleInstallsItsGroupBeforeItsEntriesAndRemovesEverything() throws Exception {
        PlanDiff add = install(rule(1, 10, match(inPort(1), ethDst("02:00:00:00:02:00")), apply(out(3))));
        assertEquals("""
                ADD host group=4293066768 type=all bucket(set_field:0x00000010->reg6,set_field:0x00000001->reg5,resubmit(,252))
                ADD host table=1,priority=10,in_port=2,eth_dst=02:00:00:00:02:00 actions=group:4293066768
                ADD snic0 table=0,priority=301,in_port=1,eth_type=0x8847,mpls_label=0x00000010 actions=resubmit(,253),output:2
                ADD snic0 table=0,priority=303,in_port=1,tunnel_id=0x0000000000000010 actions=output:2
                """, Render.changes(add));
        assertTrue(add.inOrder().get(0) instanceof GroupChange, "the group comes before the entry that uses it");
        assertEquals(1, tags.size());
        assertEquals(List.of(OFPort.of(3)), tags.portsOf(Layout.FIRST_TAG));
        PlanDiff gone = remove(1);
        assertTrue(gone.inOrder().get(gone.size() - 1) instanceof GroupChange, "the group goes last");
        assertEquals(0, plan.size());
        assertEquals(0, plan.groupCount());
        assertEquals(0, tags.size(), "the tag is freed with its last entry");
    }

    @Test
    void fig6aBothRulesTranslateWithTwoTags() throws Exception {
        install(rule(1, 10, match(inPort(1)), apply(out(3))));
        install(rule(2, 10, match(inPort(2)), apply(out(4))));
        assertEquals(2, tags.size());
        assertEquals(4, plan.entries("snic0").size(), "two deliveries per tag on the sNIC: its label's and its tag's");
    }

    @Test
    void rulesSendingToTheSamePortShareItsDeliveryAndTagGroup() throws Exception {
        install(rule(1, 10, match(inPort(1)), apply(out(3))));
        install(rule(2, 20, match(inPort(2)), apply(out(3))));
        assertEquals(1, tags.size());
        assertEquals(4, plan.size());
        assertEquals(1, plan.groupCount());
        PlanDiff first = remove(1);
        assertEquals(1, first.size(), "only the first rule's own entry goes");
        assertEquals(1, tags.size());
    }

    @Test
    void conflictingOwnersAreRefusedAndNothingChanges() throws Exception {
        PhysicalRule a = new PhysicalRule("host", new RuleKey(1, 5, match(inPort(2))), apply(out(3)),
                PhysicalRule.Role.COUNTING, 0);
        PhysicalRule b = new PhysicalRule("host", new RuleKey(1, 5, match(inPort(2))), apply(out(4)),
                PhysicalRule.Role.COUNTING, 0);
        plan.replace(Map.of(Owner.rule(1), new Translation(List.of(a), List.of())));
        assertThrows(TranslationConflictException.class, () -> plan.replace(Map.of(Owner.rule(2),
                new Translation(List.of(b), List.of()))));
        assertEquals(List.of(a.instructions()), plan.entries("host").stream().map(InstalledEntry::instructions).toList());
        assertEquals(Translation.EMPTY, plan.translationOf(Owner.rule(2)));
    }

    @Test
    void cookiesSurviveModificationAndAreNeverReused() throws Exception {
        install(rule(1, 10, match(inPort(1)), apply(out(2))));
        InstalledEntry first = plan.entries("host").get(0);
        PlanDiff modify = install(rule(1, 10, match(inPort(1)), apply(out(OFPort.CONTROLLER))));
        assertEquals(1, modify.flowModifies().size());
        assertEquals(first.cookie(), modify.flowModifies().get(0).cookie());
        remove(1);
        install(rule(2, 10, match(inPort(1)), apply(out(2))));
        assertNotEquals(first.cookie(), plan.entries("host").get(0).cookie());
    }

    @Test
    void retiredEntriesStayUntilTheirOwnerIsRemovedAndYieldToRealOwners() throws Exception {
        install(rule(1, 10, match(inPort(1)), apply(out(3))));
        PlanDiff live = plan.replaceRetiring(Map.of(Owner.rule(1), Translation.EMPTY), Owner.retired(1));
        assertEquals(0, live.size());
        assertEquals(4, plan.size() + plan.groupCount(), "kept: entry, two deliveries, tag group");
        assertEquals(1, tags.size(), "and the tag they carry");
        install(rule(2, 10, match(inPort(1)), apply(out(4))));
        assertEquals(2, tags.size());
        PlanDiff end = plan.replace(Map.of(Owner.retired(1), Translation.EMPTY));
        assertEquals("""
                DELETE host group=4293066768 type=all bucket(set_field:0x00000010->reg6,set_field:0x00000001->reg5,resubmit(,252))
                DELETE snic0 table=0,priority=301,in_port=1,eth_type=0x8847,mpls_label=0x00000010
                DELETE snic0 table=0,priority=303,in_port=1,tunnel_id=0x0000000000000010
                """, Render.changes(end), "the real owner's entry on in_port=2 stays");
        assertEquals(1, tags.size());
        assertEquals(List.of(new Instruction.ApplyActions(List.of(new org.uno.oneswitch.model.Action.Group(
                org.projectfloodlight.openflow.types.OFGroup.of((int) (Layout.TAG_GROUP_BASE + Layout.FIRST_TAG + 1)))))),
                plan.entries("host").get(0).instructions());
    }

    /**
     * A port moved back and forth: the live translation takes up again an entry an earlier remap retired, then a
     * third remap gives it up. The entry must stay for the third remap's grace period too, not go when the first
     * retirement ends (a busy host's old NF still sends through it then: a CI run lost 192 packets so).
     */
    @Test
    void anEntryTheLiveTranslationGivesUpIsKeptByThisRetirementEvenWhenAnOlderOneHoldsItToo() throws Exception {
        VirtualRule r = rule(1, 10, match(inPort(1)), apply(out(3)));
        install(r);
        plan.replaceRetiring(Map.of(Owner.rule(1), Translation.EMPTY), Owner.retired(1));
        install(r);
        PlanDiff third = plan.replaceRetiring(Map.of(Owner.rule(1), Translation.EMPTY), Owner.retired(2));
        assertEquals(0, third.size());
        assertEquals(plan.translationOf(Owner.retired(1)).flows().size(),
                plan.translationOf(Owner.retired(2)).flows().size(), "both retirements hold the entries");
        PlanDiff firstEnds = plan.replace(Map.of(Owner.retired(1), Translation.EMPTY));
        assertEquals(0, firstEnds.size(), "the second retirement still holds them: " + Render.changes(firstEnds));
        assertEquals(4, plan.size() + plan.groupCount());
        PlanDiff secondEnds = plan.replace(Map.of(Owner.retired(2), Translation.EMPTY));
        assertEquals(4, secondEnds.size(), Render.changes(secondEnds));
        assertEquals(0, plan.size() + plan.groupCount());
        assertEquals(0, tags.size());
    }

    @Test
    void tagsAreAllocatedInTurnAndRestoredFromSavedAllocations() throws Exception {
        install(rule(1, 10, match(inPort(1)), apply(out(3))));
        remove(1);
        install(rule(2, 10, match(inPort(1)), apply(out(4))));
        assertEquals(Map.of(17, List.of(4)), tags.allocations(), "a freed tag is not reused at once");
        TagSpace restored = new TagSpace();
        restored.restore(Map.of(3, List.of(5), 17, List.of(4)));
        assertEquals(Map.of(17, List.of(4)), restored.allocations(), "a 16-bit layout's tag below 16 is dropped");
        assertEquals(OptionalInt.of(17), restored.reserve(List.of(OFPort.of(4))));
        assertEquals(OptionalInt.of(18), restored.reserve(List.of(OFPort.of(3))));
    }
}
