package org.uno.oneswitch.store;

import java.util.Arrays;

/**
 * Slot numbers of rows kept in columns: a freed slot is reused before a fresh one is taken, so the
 * columns grow only to the most rows ever held at once.
 */
final class Slots {
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
