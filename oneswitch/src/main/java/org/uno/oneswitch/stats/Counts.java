package org.uno.oneswitch.stats;

/** Packet and byte counters. */
public record Counts(long packets, long bytes) {
    public static final Counts ZERO = new Counts(0, 0);

    public Counts plus(Counts o) {
        return new Counts(packets + o.packets, bytes + o.bytes);
    }
}
