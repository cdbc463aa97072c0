package org.uno.oneswitch.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.VirtualRule;

/** The flow tables' indexes: by key (filed by the key's hash) and by id, in installation order. */
class VirtualFlowTableTest {
    private final VirtualFlowTable table = new VirtualFlowTable();
    private final FlowMatch m = match(inPort(1));

    private VirtualRule rule(int tableId, int priority) {
        return VirtualRule.builder().id(table.newId()).table(tableId).priority(priority).match(m).build();
    }

    /** Two keys of the same match whose hashes are equal: table 1 at some priority against table 0 at another. */
    private RuleKey[] collidingKeys() {
        RuleKey a = new RuleKey(1, 0, m);
        for (int p = 0; p < 0x10000; p++) {
            RuleKey b = new RuleKey(0, p, m);
            if (b.hashCode() == a.hashCode()) {
                return new RuleKey[] {a, b};
            }
        }
        throw new AssertionError("no two keys with one hash among 65,536 priorities");
    }

    @Test
    void keysWithOneHashAreKeptApartFoundAndRemovedOneByOne() {
        RuleKey[] keys = collidingKeys();
        assertNotEquals(keys[0], keys[1]);
        VirtualRule a = rule(keys[0].table(), keys[0].priority());
        VirtualRule b = rule(keys[1].table(), keys[1].priority());
        VirtualRule c = rule(2, 7);
        table.put(a);
        table.put(b);
        table.put(c);
        assertEquals(a, table.get(keys[0]).orElseThrow());
        assertEquals(b, table.get(keys[1]).orElseThrow());
        assertEquals(3, table.size());
        // the same key again, a new id: it replaces the old rule, which goes (and so does its place in the order)
        VirtualRule a2 = rule(keys[0].table(), keys[0].priority());
        table.put(a2);
        assertEquals(a2, table.get(keys[0]).orElseThrow());
        assertTrue(table.byId(a.id()).isEmpty());
        assertEquals(List.of(b, c, a2), List.copyOf(table.all()));
        table.remove(b.id());
        assertTrue(table.get(keys[1]).isEmpty());
        assertEquals(a2, table.get(keys[0]).orElseThrow());
        assertEquals(2, table.size());
    }

    @Test
    void aReplacementWithTheSameIdAndKeyKeepsItsPlace() {
        VirtualRule a = rule(0, 1);
        VirtualRule b = rule(0, 2);
        table.put(a);
        table.put(b);
        VirtualRule a2 = a.toBuilder().hardTimeout(9).build();
        table.put(a2);
        assertEquals(List.of(a2, b), List.copyOf(table.all()));
        assertEquals(a2, table.get(a.key()).orElseThrow());
    }
}
