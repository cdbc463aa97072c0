package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.store.PhysicalFlowTable;

/**
 * Translations kept by rule: one that starts with the rule's counting entry as the plan holds it reads back
 * equal from the entry's slot and a rest shared by the rules with an equal one; any other is kept whole.
 */
class TranslationsTest {
    private final PhysicalFlowTable flows = new PhysicalFlowTable();
    private final Translations translations = new Translations(flows);
    private final PhysicalGroup tagGroup = new PhysicalGroup("host", 0xfff00003L, OFGroupType.ALL,
            List.of(Bucket.of(List.of(out(7)))), 3);
    private final PhysicalRule delivery = planned(new PhysicalRule(new PhysicalKey("snic0", 0, 300, match(inPort(9))),
            apply(out(3)), PhysicalRule.Role.DELIVERY, 3));

    private PhysicalRule planned(PhysicalRule r) {
        flows.put(r.physicalKey(), new PhysicalFlowTable.Content(r.instructions(), flows.size() + 1, r.tag()));
        return r;
    }

    private PhysicalRule counting(int port) {
        return planned(new PhysicalRule(new PhysicalKey("host", 1, 100, match(inPort(port))),
                apply(out(2)), PhysicalRule.Role.COUNTING, 0));
    }

    @Test
    void aCrossingRulesTranslationReadsBackEqualWithItsRestShared() {
        Translation a = new Translation(List.of(counting(1), delivery), List.of(tagGroup));
        Translation b = new Translation(List.of(counting(2), delivery), List.of(tagGroup));
        translations.put(Owner.rule(1), a);
        translations.put(Owner.rule(2), b);
        assertEquals(a, translations.get(Owner.rule(1)));
        assertEquals(b, translations.get(Owner.rule(2)));
        assertSame(translations.get(Owner.rule(1)).groups(), translations.get(Owner.rule(2)).groups());
        assertEquals(a, translations.remove(Owner.rule(1)));
        assertNull(translations.get(Owner.rule(1)));
        assertEquals(List.of(Owner.rule(2)), translations.owners());
    }

    @Test
    void aRuleOnEverySwitchReadsBackWithBothCountingEntries() {
        PhysicalRule onSnic = planned(new PhysicalRule(new PhysicalKey("snic0", 1, 100, match(inPort(9))),
                apply(out(3)), PhysicalRule.Role.COUNTING, 0));
        Translation both = new Translation(List.of(counting(1), onSnic), List.of());
        Translation bothAndMore = new Translation(List.of(counting(2), onSnic, delivery), List.of(tagGroup));
        translations.put(Owner.rule(1), both);
        translations.put(Owner.rule(2), bothAndMore);
        assertEquals(both, translations.get(Owner.rule(1)));
        assertEquals(bothAndMore, translations.get(Owner.rule(2)));
    }

    @Test
    void aLocalRulesTranslationReadsBackEqualFromItsEntry() {
        Translation t = new Translation(List.of(counting(4)), List.of());
        translations.put(Owner.rule(4), t);
        assertEquals(t, translations.get(Owner.rule(4)));
        translations.drop(Owner.rule(4));
        assertNull(translations.get(Owner.rule(4)));
    }

    @Test
    void translationsOfAnyOtherShapeAreKeptWhole() {
        PhysicalRule unplanned = new PhysicalRule(new PhysicalKey("host", 1, 100, match(inPort(5))),
                apply(out(2)), PhysicalRule.Role.COUNTING, 0);
        PhysicalRule otherActions = new PhysicalRule(counting(6).physicalKey(), apply(out(3)),
                PhysicalRule.Role.COUNTING, 0);
        Translation deliveryFirst = new Translation(List.of(delivery, counting(8)), List.of());
        translations.put(Owner.rule(5), new Translation(List.of(unplanned), List.of()));
        translations.put(Owner.rule(6), new Translation(List.of(otherActions), List.of()));
        translations.put(Owner.rule(8), deliveryFirst);
        translations.put(Owner.group(1), new Translation(List.of(delivery), List.of(tagGroup)));
        assertEquals(new Translation(List.of(unplanned), List.of()), translations.get(Owner.rule(5)));
        assertEquals(new Translation(List.of(otherActions), List.of()), translations.get(Owner.rule(6)));
        assertEquals(deliveryFirst, translations.get(Owner.rule(8)));
        assertEquals(new Translation(List.of(delivery), List.of(tagGroup)), translations.get(Owner.group(1)));
        assertEquals(Set.of(Owner.rule(5), Owner.rule(6), Owner.rule(8), Owner.group(1)), Set.copyOf(translations.owners()));
    }
}
