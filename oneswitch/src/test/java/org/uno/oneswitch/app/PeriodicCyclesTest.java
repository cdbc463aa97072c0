package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The periodic collection waits for a quiet interval, then runs its cycles a step apart, then stays off until
 * the heap has grown again.
 */
class PeriodicCyclesTest {
    private static final long MB = 1 << 20;
    private static final long QUIET = 60_000;
    private static final long STEP = 5_000;
    private static final long OFF = PeriodicCycles.OFF;

    @Test
    void quietFirstThenStepsThenOffAndOnAgainOnlyWhenTheHeapGrew() {
        PeriodicCycles p = new PeriodicCycles(3, QUIET, STEP);
        assertEquals(QUIET, p.interval());
        assertEquals(STEP, p.afterCollection(true, 300 * MB));
        assertEquals(QUIET, p.afterCollection(false, 300 * MB));  // busy again: quiet again, and the count starts over
        assertEquals(STEP, p.afterCollection(true, 300 * MB));
        assertEquals(STEP, p.afterCollection(true, 200 * MB));
        assertEquals(OFF, p.afterCollection(true, 100 * MB));
        assertEquals(OFF, p.afterCollection(true, 100 * MB));    // one the JVM had already started
        assertEquals(OFF, p.afterCollection(false, 100 * MB));   // an idle process's young collection
        assertEquals(OFF, p.afterCollection(false, 110 * MB));   // a tenth more is not worth a cycle
        assertEquals(QUIET, p.afterCollection(false, 111 * MB));
        assertEquals(STEP, p.afterCollection(true, 111 * MB));
        assertEquals(STEP, p.afterCollection(true, 111 * MB));
        assertEquals(OFF, p.afterCollection(true, 90 * MB));
        assertEquals(OFF, p.interval());
    }

    @Test
    void atLeastOneCycleAndPositiveIntervals() {
        assertThrows(IllegalArgumentException.class, () -> new PeriodicCycles(0, QUIET, STEP));
        assertThrows(IllegalArgumentException.class, () -> new PeriodicCycles(1, 0, STEP));
        assertThrows(IllegalArgumentException.class, () -> new PeriodicCycles(1, QUIET, -1));
    }
}
