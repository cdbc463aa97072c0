package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.plan.PhysicalRule;

/** A translation reads back what it was given, however many entries, and equal content is equal. */
class TranslationTest {
    private static PhysicalRule entry(int priority) {
        return new PhysicalRule("host", new RuleKey(0, priority, FlowMatch.ANY), List.of(), PhysicalRule.Role.COUNTING,
                0);
    }

    @Test
    void readsBackItsEntriesWhateverTheirNumber() {
        for (int n = 0; n <= 3; n++) {
            List<PhysicalRule> flows = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                flows.add(entry(i));
            }
            Translation t = new Translation(flows, List.of());
            assertEquals(flows, t.flows());
            assertEquals(n == 0, t.isEmpty());
            Translation same = new Translation(new ArrayList<>(flows), List.of());
            assertEquals(t, same);
            assertEquals(t.hashCode(), same.hashCode());
        }
    }

    @Test
    void differentEntriesAreDifferentTranslations() {
        Translation one = new Translation(List.of(entry(1)), List.of());
        assertNotEquals(one, new Translation(List.of(entry(2)), List.of()));
        assertNotEquals(one, new Translation(List.of(entry(1), entry(2)), List.of()));
        assertFalse(one.isEmpty());
        assertTrue(Translation.EMPTY.isEmpty());
    }
}
