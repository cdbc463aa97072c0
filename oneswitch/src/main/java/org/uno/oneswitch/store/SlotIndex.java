package org.uno.oneswitch.store;

import java.util.Arrays;

import it.unimi.dsi.fastutil.HashCommon;

/**
 * A hash index from a long key to the slots of a column store, chained through the slots: a bucket
 * array, and per slot its key and the next slot of its bucket. A key may be filed under several slots
 * (a hash of a longer key); walking its slots skips the others of the bucket.
 *
 * <p>Why not an open-addressing map: it keeps a key and a value at a load of 3/8 to 3/4, in two arrays
 * of a power of two plus one element. Past two megabytes such an array is a humongous object of the G1
 * collector and takes whole regions, so a map of 200,000 entries held 36 MB of regions for 6 MB of
 * data. Here a slot costs 16 bytes, and every array is sized to just under a power of two bytes, which
 * a humongous object fills without a wasted region ({@link Slots#capacityAfter}). The key is kept here,
 * not read back from the store's columns, so that a probe reads one array, not several.
 */
final class SlotIndex {
    static final int NONE = -1;

    private int[] heads = emptyBuckets(Slots.FIRST_CAPACITY);
    private int[] next = new int[Slots.FIRST_CAPACITY];
    private long[] keyOf = new long[Slots.FIRST_CAPACITY];
    private int size;

    /** How many slots are filed. */
    int size() {
        return size;
    }

    /** The first slot filed under {@code key}, or NONE. */
    int first(long key) {
        return sameKeyFrom(heads[bucket(key, heads.length)], key);
    }

    /** The next slot filed under the key {@code slot} is filed under, or NONE. */
    int next(int slot) {
        return sameKeyFrom(next[slot], keyOf[slot]);
    }

    /** Files {@code slot}, which is not filed, under {@code key}. */
    void add(int slot, long key) {
        if (slot >= next.length) {
            int capacity = Math.max(slot + 1, Slots.capacityAfter(next.length));
            next = Arrays.copyOf(next, capacity);
            keyOf = Arrays.copyOf(keyOf, capacity);
        }
        if (size == heads.length) {
            rehash(Slots.capacityAfter(heads.length));
        }
        int b = bucket(key, heads.length);
        keyOf[slot] = key;
        next[slot] = heads[b];
        heads[b] = slot;
        size++;
    }

    /** Takes {@code slot}, which is filed, out. */
    void remove(int slot) {
        int b = bucket(keyOf[slot], heads.length);
        if (heads[b] == slot) {
            heads[b] = next[slot];
        } else {
            int s = heads[b];
            while (next[s] != slot) {
                s = next[s];
            }
            next[s] = next[slot];
        }
        size--;
    }

    private int sameKeyFrom(int slot, long key) {
        int s = slot;
        while (s != NONE && keyOf[s] != key) {
            s = next[s];
        }
        return s;
    }

    /** Files every slot again over {@code buckets} buckets (each bucket's chain, walked before it is overwritten). */
    private void rehash(int buckets) {
        int[] old = heads;
        heads = emptyBuckets(buckets);
        for (int head : old) {
            for (int s = head, after; s != NONE; s = after) {
                after = next[s];
                int b = bucket(keyOf[s], buckets);
                next[s] = heads[b];
                heads[b] = s;
            }
        }
    }

    /** The bucket of {@code key} among {@code buckets}, by multiplying its mixed hash (no power of two needed). */
    private static int bucket(long key, int buckets) {
        return (int) (((HashCommon.mix(key) & 0xffffffffL) * buckets) >>> 32);
    }

    private static int[] emptyBuckets(int buckets) {
        int[] b = new int[buckets];
        Arrays.fill(b, NONE);
        return b;
    }
}
