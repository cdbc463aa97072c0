package org.uno.oneswitch.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The slot index against a plain map of sets: slots filed under shared and distinct keys, through
 * growth and removals, are found exactly; and column capacities stay just under a power of two bytes.
 */
class SlotIndexTest {
    private final long[] keyOf = new long[100_000];
    private final SlotIndex index = new SlotIndex();
    private final Map<Long, Set<Integer>> expected = new HashMap<>();

    private Set<Integer> found(long key) {
        Set<Integer> slots = new HashSet<>();
        for (int s = index.first(key); s != SlotIndex.NONE; s = index.next(s)) {
            assertTrue(slots.add(s), "slot " + s + " found twice under " + key);
        }
        return slots;
    }

    private void file(int slot, long key) {
        keyOf[slot] = key;
        index.add(slot, key);
        expected.computeIfAbsent(key, k -> new HashSet<>()).add(slot);
    }

    private void unfile(int slot) {
        index.remove(slot);
        expected.get(keyOf[slot]).remove(slot);
    }

    @Test
    void slotsUnderSharedKeysAreFoundExactlyThroughGrowthAndRemovals() {
        Random random = new Random(18);
        List<Integer> filed = new ArrayList<>();
        for (int slot = 0; slot < keyOf.length; slot++) {
            // a third of the keys are shared by several slots, as hashes of longer keys are
            file(slot, random.nextInt(3) == 0 ? random.nextInt(500) : random.nextLong());
            filed.add(slot);
        }
        assertEquals(keyOf.length, index.size());
        for (int i = 0; i < 90_000; i++) {
            unfile(filed.remove(random.nextInt(filed.size())));
        }
        assertEquals(filed.size(), index.size());
        for (Map.Entry<Long, Set<Integer>> e : expected.entrySet()) {
            assertEquals(e.getValue(), found(e.getKey()), "slots under " + e.getKey());
        }
        assertEquals(Set.of(), found(-7));
    }

    @Test
    void aSlotFreedAndFiledAgainUnderAnotherKeyMovesWithIt() {
        file(3, 1);
        file(4, 1);
        unfile(3);
        file(3, 2);
        assertEquals(Set.of(4), found(1));
        assertEquals(Set.of(3), found(2));
    }

    @Test
    void capacitiesWithTheirHeaderFitAPowerOfTwoBytes() {
        for (int c = Slots.FIRST_CAPACITY; c < 1 << 26; c = Slots.capacityAfter(c)) {
            long intBytes = 16 + 4L * c;
            long longBytes = 16 + 8L * c;
            assertEquals(0, intBytes & (intBytes - 1), c + " ints");
            assertTrue((Long.highestOneBit(longBytes) << 1) - longBytes <= 16, c + " longs: " + longBytes + " bytes");
        }
    }
}
