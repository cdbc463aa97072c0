package org.uno.oneswitch.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.ethDst;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.MacAddress;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.store.PhysicalFlowTable.Content;

/**
 * The planned physical entries kept in columns: read back equal by key and by cookie, keys filed under one
 * hash kept apart, and every entry left readable while most are removed and the match pages compacted.
 */
class PhysicalFlowTableTest {
    private final PhysicalFlowTable table = new PhysicalFlowTable();
    private final FlowMatch m = match(inPort(1));
    private final List<Instruction> toTwo = apply(out(2));

    private static FlowMatch host(long mac) {
        return match(inPort(1), ethDst(MacAddress.of(mac).toString()));
    }

    @Test
    void anEntryReadsBackByKeyAndByCookieAndItsOldCookieGoesWhenItChanges() {
        PhysicalKey key = new PhysicalKey("snic0", 3, 0xffff, host(0x0a0000000001L));
        assertNull(table.put(key, new Content(toTwo, 41, 7)));
        assertEquals(new Content(toTwo, 41, 7), table.get(key));
        assertEquals(key, table.keyOf(41));
        assertEquals(new Content(toTwo, 41, 7), table.put(key, new Content(List.of(), 42, 0)));
        assertFalse(table.hasCookie(41));
        assertNull(table.keyOf(41));
        assertEquals(key, table.keyOf(42));
        assertEquals(new Content(List.of(), 42, 0), table.get(key));
        assertEquals(1, table.size());
        assertEquals(new Content(List.of(), 42, 0), table.put(key, null));
        assertNull(table.get(key));
        assertEquals(0, table.size());
    }

    @Test
    void keysWithOneHashAreKeptApartFoundAndRemovedOneByOne() {
        // (switch 0, priority 31 + p) and (switch 1, priority p) with one match are filed under one hash
        PhysicalKey a = new PhysicalKey("host", 0, 40, m);
        PhysicalKey b = new PhysicalKey("snic0", 0, 9, m);
        PhysicalKey c = new PhysicalKey("host", 0, 9, m);
        assertEquals(PhysicalFlowTable.keyHash(0, 40, m.hashCode()), PhysicalFlowTable.keyHash(1, 9, m.hashCode()));
        table.put(a, new Content(toTwo, 1, 0));
        table.put(b, new Content(toTwo, 2, 0));
        table.put(c, new Content(toTwo, 3, 0));
        assertEquals(1, table.get(a).cookie());
        assertEquals(2, table.get(b).cookie());
        assertEquals(3, table.get(c).cookie());
        table.put(b, null);   // the chain's head
        assertNull(table.get(b));
        assertEquals(1, table.get(a).cookie());
        table.put(b, new Content(toTwo, 4, 0));
        table.put(a, null);   // now behind b in the chain
        assertNull(table.get(a));
        assertEquals(4, table.get(b).cookie());
        assertEquals(b, table.keyOf(4));
        assertNull(table.get(new PhysicalKey("snic1", 0, 9, m)));
    }

    @Test
    void entriesStayReadableWhileMostAreRemovedAndTheirMatchPagesCompacted() {
        Map<PhysicalKey, Content> kept = new HashMap<>();
        for (int i = 0; i < 30_000; i++) {
            PhysicalKey key = new PhysicalKey(i % 3 == 0 ? "snic0" : "host", 1, 100, host(i));
            table.put(key, new Content(toTwo, 1000 + i, 0));
            if (i % 10 == 0) {
                kept.put(key, new Content(toTwo, 1000 + i, 0));
            }
        }
        for (int i = 0; i < 30_000; i++) {
            PhysicalKey key = new PhysicalKey(i % 3 == 0 ? "snic0" : "host", 1, 100, host(i));
            if (!kept.containsKey(key)) {
                assertEquals(1000 + i, table.put(key, null).cookie());
            }
        }
        assertEquals(kept.size(), table.size());
        kept.forEach((key, content) -> {
            assertEquals(content, table.get(key));
            assertEquals(key, table.keyOf(content.cookie()));
        });
        Map<PhysicalKey, Content> onSnic = new HashMap<>();
        table.forEachOn("snic0", onSnic::put);
        kept.forEach((key, content) -> assertEquals(key.switchId().equals("snic0"), onSnic.containsKey(key)));
        assertEquals(kept.keySet().stream().filter(k -> k.switchId().equals("snic0")).count(), onSnic.size());
        // freed slots are taken again, and what is added then reads back too
        PhysicalKey late = new PhysicalKey("host", 2, 5, host(1L << 40));
        table.put(late, new Content(toTwo, 99, 3));
        assertEquals(new Content(toTwo, 99, 3), table.get(late));
        assertTrue(table.hasCookie(99));
    }
}
