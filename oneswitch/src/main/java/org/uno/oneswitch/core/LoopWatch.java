package org.uno.oneswitch.core;

import java.util.function.LongSupplier;

/**
 * How long OneSwitch's event loop was held: a tick asks to run every {@value #TICK_MS} ms, and
 * how late it runs is how long something (a long task, a garbage collection's pause) kept the loop
 * from everything else on it, echo replies and PACKET_INs included. A stall of S ms makes a tick
 * late by between S - {@value #TICK_MS} and S ms. The counts only grow (read them twice and
 * subtract to see a period); nothing is kept per stall, so the memory is fixed. Event loop only.
 */
public final class LoopWatch {
    public static final long TICK_MS = 5;
    /** Upper bounds (ms) of the lateness buckets; the last bucket is everything above the last bound. */
    private static final long[] BOUNDS_MS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};

    private final LongSupplier clock;
    private final Timers timers;
    private final long[] counts = new long[BOUNDS_MS.length + 1];
    private long maxLateNanos;
    private long due;

    public LoopWatch(LongSupplier nanoClock, Timers timers) {
        this.clock = nanoClock;
        this.timers = timers;
    }

    /** Starts ticking. */
    public void start() {
        due = clock.getAsLong() + TICK_MS * 1_000_000;
        timers.schedule(TICK_MS, this::tick);
    }

    private void tick() {
        long now = clock.getAsLong();
        record(Math.max(0, now - due));
        due = now + TICK_MS * 1_000_000;
        timers.schedule(TICK_MS, this::tick);
    }

    void record(long lateNanos) {
        maxLateNanos = Math.max(maxLateNanos, lateNanos);
        int i = 0;
        while (i < BOUNDS_MS.length && lateNanos > BOUNDS_MS[i] * 1_000_000) {
            i++;
        }
        counts[i]++;
    }

    /** Upper bounds of the buckets, in ms; {@link #counts} has one more, for what lies above the last. */
    public static long[] boundsMillis() {
        return BOUNDS_MS.clone();
    }

    /** Ticks by lateness bucket, since the start. */
    public long[] counts() {
        return counts.clone();
    }

    /** The watch as one JSON object, {"max_late_ms", "late_ms_bounds", "late_ticks"}, as /v1/health shows it. */
    public String json() {
        return String.format(java.util.Locale.ROOT, "{\"max_late_ms\": %.3f, \"late_ms_bounds\": %s, \"late_ticks\": %s}",
                maxLateMillis(), java.util.Arrays.toString(BOUNDS_MS), java.util.Arrays.toString(counts));
    }

    /** The latest any tick ran since the start, in ms. */
    public double maxLateMillis() {
        return maxLateNanos / 1e6;
    }
}
