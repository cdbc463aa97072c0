package org.uno.oneswitch.app;

/**
 * When the JVM's periodic collection should be on (see {@link HeapPolicy}): while there is heap to give
 * back. It is on from the start, and after {@code cycles} periodic collections in a row (enough for G1 to
 * end a mixed phase and run the concurrent cycles whose remarks shrink the heap) it goes off. A later
 * collection turns it on again only if the committed heap has grown by more than a tenth since: the
 * young collections of an idle process's small allocations give nothing back, and with the periodic
 * collection always on an idle OneSwitch paused every 5 s (7-22 ms each time on a busy machine).
 */
final class PeriodicCycles {
    /** What to do with the periodic collection after a collection. */
    enum Change { ON, OFF, NONE }

    private final int cycles;
    private int left;
    private long committedWhenOff;

    /** Starts on, as after the collections of a start. */
    PeriodicCycles(int cycles) {
        if (cycles < 1) {
            throw new IllegalArgumentException("at least one periodic collection, not " + cycles);
        }
        this.cycles = cycles;
        this.left = cycles;
    }

    /**
     * After a collection, periodic or caused by anything else (allocation, metadata, an explicit request),
     * with the heap committed after it.
     */
    Change afterCollection(boolean periodic, long committedBytes) {
        if (left == 0) {
            if (periodic || committedBytes <= committedWhenOff + committedWhenOff / 10) {
                return Change.NONE;
            }
            left = cycles;
            return Change.ON;
        }
        if (!periodic) {
            left = cycles;  // still busy: the count starts when it is idle
            return Change.NONE;
        }
        if (--left > 0) {
            return Change.NONE;
        }
        committedWhenOff = committedBytes;
        return Change.OFF;
    }
}
