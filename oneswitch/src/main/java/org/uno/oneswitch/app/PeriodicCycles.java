package org.uno.oneswitch.app;

/**
 * The interval of the JVM's periodic collection (see {@link HeapPolicy}), after each collection: a quiet
 * interval while OneSwitch is busy, so that memory goes back only once nothing has been collected for that
 * long; a short step between the periodic collections that follow, which end a mixed phase and run the
 * concurrent cycles whose remarks shrink the heap; and off after {@code cycles} of them in a row. A later
 * collection turns it on again only if the committed heap has grown by more than a tenth since: the young
 * collections of an idle process's small allocations give nothing back, and with the periodic collection
 * always on an idle OneSwitch paused every step (7-22 ms each time on a busy machine).
 */
final class PeriodicCycles {
    static final long OFF = 0;

    private final int cycles;
    private final long quietMs;
    private final long stepMs;
    private int left;
    private long committedWhenOff;
    private long interval;

    /** Starts at the quiet interval, as after the collections of a start. */
    PeriodicCycles(int cycles, long quietMs, long stepMs) {
        if (cycles < 1) {
            throw new IllegalArgumentException("at least one periodic collection, not " + cycles);
        }
        if (quietMs <= 0 || stepMs <= 0) {
            throw new IllegalArgumentException("intervals are positive: quiet " + quietMs + " ms, step " + stepMs + " ms");
        }
        this.cycles = cycles;
        this.quietMs = quietMs;
        this.stepMs = stepMs;
        this.left = cycles;
        this.interval = quietMs;
    }

    /** The interval now, in ms ({@link #OFF}: no periodic collection). */
    long interval() {
        return interval;
    }

    /**
     * The interval after a collection, periodic or caused by anything else (allocation, metadata, an explicit
     * request), with the heap committed after it.
     */
    long afterCollection(boolean periodic, long committedBytes) {
        if (left == 0) {
            if (!periodic && committedBytes > committedWhenOff + committedWhenOff / 10) {
                left = cycles;
                interval = quietMs;
            }
        } else if (!periodic) {
            left = cycles;  // still busy: the count starts when it is quiet
            interval = quietMs;
        } else if (--left > 0) {
            interval = stepMs;
        } else {
            committedWhenOff = committedBytes;
            interval = OFF;
        }
        return interval;
    }
}
