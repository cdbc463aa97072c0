package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayDeque;

import org.junit.jupiter.api.Test;

/** A tick's lateness is counted in its bucket and the latest is kept; the watch keeps ticking. */
class LoopWatchTest {
    private long now;
    private final ArrayDeque<Runnable> due = new ArrayDeque<>();
    private final LoopWatch watch = new LoopWatch(() -> now, (ms, task) -> due.add(task));

    private void runAfter(long millis) {
        now += millis * 1_000_000;
        due.poll().run();
    }

    @Test
    void countsEachTickByHowLateItRan() {
        watch.start();
        runAfter(LoopWatch.TICK_MS);          // on time
        runAfter(LoopWatch.TICK_MS + 12);     // held 12 ms: in (10, 20]
        runAfter(LoopWatch.TICK_MS + 3);      // in (2, 5]
        runAfter(LoopWatch.TICK_MS + 5000);   // above the last bound
        assertArrayEquals(new long[] {1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1}, watch.counts());
        assertEquals(5000.0, watch.maxLateMillis(), 1e-9);
        assertEquals(1, due.size(), "the next tick is scheduled");
        assertEquals(watch.counts().length, LoopWatch.boundsMillis().length + 1);
    }
}
