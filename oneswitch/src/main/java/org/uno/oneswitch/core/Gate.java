package org.uno.oneswitch.core;

import java.util.ArrayDeque;

/**
 * Holds back plan changes (controller requests, timeouts) while a multi-stage change such as a
 * remap is being applied to the switches, so that nothing is sent in between its stages; what
 * waited runs, in order, when the gate opens. Event loop only.
 */
public final class Gate {
    private int closed;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

    public boolean isOpen() {
        return closed == 0;
    }

    void close() {
        closed++;
    }

    void open() {
        if (closed == 0) {
            throw new IllegalStateException("gate is not closed");
        }
        closed--;
        while (closed == 0 && !waiting.isEmpty()) {
            waiting.poll().run();
        }
    }

    /** Runs {@code task} now if the gate is open, else when it opens. */
    public void whenOpen(Runnable task) {
        if (closed == 0) {
            task.run();
        } else {
            waiting.add(task);
        }
    }
}
