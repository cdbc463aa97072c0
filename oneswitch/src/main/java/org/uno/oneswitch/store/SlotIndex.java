package org.uno.oneswitch.store;

import java.util.Arrays;

import it.unimi.dsi.fastutil.HashCommon;

/**
 * A hash index from a long key to the slots of a column store, chained through the slots: a bucket
 * array and a next-slot array, and no key stored, as the store's columns give each slot's key. A key
 * may be filed under several slots (a hash of a longer key); walking its slots skips the others of the
 * bucket.
 *
 * <p>Why not an open-addressing map: it keeps a copy of every key and a value, at a load of 3/8 to 3/4,
 * in two arrays of a power of two plus one element. Past two megabytes such an array is a humongous
 * object of the G1 collector and takes whole regions, so a map of 200,000 entries held 36 MB of regions
 * for 6 MB of data. Here a slot costs two ints, and both arrays are sized to just under a power of two
 * bytes, which a humongous object fills without a wasted region ({@link Slots#capacityAfter}).
 */
final class SlotIndex {
    static final int NONE = -1;

    /** The key a slot in the index is filed under, read from the store's columns. */
    interface Keys {
        long keyAt(int slot);
    }

    private final Keys keys;
    private int[] heads;
    private int[] next = new int[Slots.FIRST_CAPACITY];
    private int size;

    SlotIndex(Keys keys) {
        this.keys = keys;
        heads = emptyBuckets(Slots.FIRST_CAPACITY);
    }

    /** How many slots are filed. */
    int size() {
        return size;
    }

    /** The first slot filed under {@code key}, or NONE. */
    int first(long key) {
        return sameKeyFrom(heads[bucket(key, heads.length)], key);
    }

    /** The slot after {@code slot} filed under {@code key} (the key {@code slot} is filed under), or NONE. */
    int next(int slot, long key) {
        return sameKeyFrom(next[slot], key);
    }

    /** Files {@code slot}, which is not filed, under {@code key}, which its columns already give. */
    void add(int slot, long key) {
        if (slot >= next.length) {
            next = Arrays.copyOf(next, Math.max(slot + 1, Slots.capacityAfter(next.length)));
        }
        if (size == heads.length) {
            rehash(Slots.capacityAfter(heads.length));
        }
        int b = bucket(key, heads.length);
        next[slot] = heads[b];
        heads[b] = slot;
        size++;
    }

    /** Takes {@code slot}, filed under {@code key}, out. */
    void remove(int slot, long key) {
        int b = bucket(key, heads.length);
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
        while (s != NONE && keys.keyAt(s) != key) {
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
                int b = bucket(keys.keyAt(s), buckets);
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
