package org.uno.oneswitch.core;

import java.util.ArrayDeque;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * The one entry for changes of the physical plan, after Open vSwitch's bundle commits: every
 * mutator (controller requests, REST port changes and remaps, switch connections and port
 * changes, timeouts, undoing what the state file could not take, the end of a remap's retirement)
 * runs through it, one at a time, on the event loop. A multi-stage change such as a remap closes
 * it until its last stage is in effect, so nothing is sent between its stages; what waited runs,
 * in order, when it opens. Event loop only.
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

    /**
     * Runs {@code change} as {@link #whenOpen} does; the future completes as the one it returns does,
     * or with what it throws.
     */
    public <T> CompletableFuture<T> enter(Callable<CompletableFuture<T>> change) {
        CompletableFuture<T> out = new CompletableFuture<>();
        whenOpen(() -> {
            try {
                change.call().whenComplete((v, t) -> {
                    if (t != null) {
                        out.completeExceptionally(t);
                    } else {
                        out.complete(v);
                    }
                });
            } catch (Exception e) {
                out.completeExceptionally(e);
            }
        });
        return out;
    }
}
