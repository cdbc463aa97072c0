package org.uno.oneswitch.model;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared instance per distinct value of an immutable type that recurs across many rules (the
 * same instruction list, the same in_port field), so that a rule table keeps each value once. Holds
 * at most {@code capacity} values: beyond that, new values are returned as they are (still correct,
 * only not shared). Safe to use from any thread.
 */
public final class Interner<T> {
    private final ConcurrentHashMap<T, T> kept = new ConcurrentHashMap<>();
    private final int capacity;

    public Interner(int capacity) {
        this.capacity = capacity;
    }

    /** The kept instance equal to {@code value}, or {@code value} itself (kept if there is room). */
    public T intern(T value) {
        T known = kept.get(value);
        if (known != null) {
            return known;
        }
        if (kept.size() >= capacity) {
            return value;
        }
        known = kept.putIfAbsent(value, value);
        return known != null ? known : value;
    }
}
