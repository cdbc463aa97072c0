package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The periodic collection runs its cycles when idle, then stays off until the heap has grown again. */
class PeriodicCyclesTest {
    private static final long MB = 1 << 20;
    private static final PeriodicCycles.Change NONE = PeriodicCycles.Change.NONE;

    @Test
    void offAfterItsCyclesInARowAndOnAgainOnlyWhenTheHeapGrew() {
        PeriodicCycles p = new PeriodicCycles(3);
        assertEquals(NONE, p.afterCollection(true, 300 * MB));
        assertEquals(NONE, p.afterCollection(false, 300 * MB));  // busy again: the count starts over
        assertEquals(NONE, p.afterCollection(true, 300 * MB));
        assertEquals(NONE, p.afterCollection(true, 200 * MB));
        assertEquals(PeriodicCycles.Change.OFF, p.afterCollection(true, 100 * MB));
        assertEquals(NONE, p.afterCollection(true, 100 * MB));    // one the JVM had already started
        assertEquals(NONE, p.afterCollection(false, 100 * MB));   // an idle process's young collection
        assertEquals(NONE, p.afterCollection(false, 110 * MB));   // a tenth more is not worth a cycle
        assertEquals(PeriodicCycles.Change.ON, p.afterCollection(false, 111 * MB));
        assertEquals(NONE, p.afterCollection(true, 111 * MB));
        assertEquals(NONE, p.afterCollection(true, 111 * MB));
        assertEquals(PeriodicCycles.Change.OFF, p.afterCollection(true, 90 * MB));
    }

    @Test
    void atLeastOneCycle() {
        assertThrows(IllegalArgumentException.class, () -> new PeriodicCycles(0));
    }
}
