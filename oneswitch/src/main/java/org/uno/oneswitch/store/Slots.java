package org.uno.oneswitch.store;

import java.util.Arrays;

/**
 * Slot numbers of rows kept in columns: a freed slot is reused before a fresh one is taken, so the
 * columns grow only to the most rows ever held at once.
 */
final class Slots {
    /**
     * An array's header, in 4-byte elements (16 bytes with compressed class pointers). Columns of
     * {@code 2^k - HEADER} 4- or 8-byte elements take just under a power of two bytes, header included:
     * past half a G1 region, an array is a humongous object of whole regions, and one just over a power
     * of two would waste up to a region.
     */
    private static final int HEADER = 4;
    /** The capacity columns start with. */
    static final int FIRST_CAPACITY = (1 << 10) - HEADER;

    /** The capacity after {@code length}: twice as much, header included. */
    static int capacityAfter(int length) {
        return 2 * (length + HEADER) - HEADER;
    }

    private int[] free = new int[64];
    private int freeCount;
    private int highWater;

    /** A slot for a new row: a freed one, else the next fresh one (the caller grows its columns to hold it). */
    int allocate() {
        return freeCount > 0 ? free[--freeCount] : highWater++;
    }

    /** {@code slot} is free again. */
    void release(int slot) {
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, free.length * 2);
        }
        free[freeCount++] = slot;
    }

    /** One past the highest slot ever allocated. */
    int highWater() {
        return highWater;
    }
}
