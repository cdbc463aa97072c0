package org.uno.oneswitch.app;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.netty.channel.EventLoop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.core.SavedState;

/**
 * Keeps the state file up to date without slowing the event loop: a change marks the state dirty,
 * and at most every {@link #DELAY_MS} a snapshot is taken on the loop and written by a thread of
 * its own. At shutdown the last state is written before OneSwitch exits.
 */
final class StateWriter {
    private static final Logger LOG = LoggerFactory.getLogger(StateWriter.class);
    static final long DELAY_MS = 100;

    private final Path file;
    private final EventLoop loop;
    private final Supplier<SavedState> snapshot;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "oneswitch-state");
        t.setDaemon(true);
        return t;
    });
    private boolean scheduled;

    StateWriter(Path file, EventLoop loop, Supplier<SavedState> snapshot) {
        this.file = file;
        this.loop = loop;
        this.snapshot = snapshot;
    }

    /** Something changed (event loop): the state is written within {@link #DELAY_MS}. */
    void changed() {
        if (!scheduled) {
            scheduled = true;
            loop.schedule(() -> {
                scheduled = false;
                SavedState s = snapshot.get();
                writer.execute(() -> write(s));
            }, DELAY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /** Writes the current state now and stops (called once the event loop has stopped changing it). */
    void close(SavedState last) {
        writer.shutdown();
        try {
            writer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        write(last);
    }

    private void write(SavedState s) {
        try {
            StateFile.write(file, s);
        } catch (IOException e) {
            LOG.error("cannot write state file {}: {}", file, e.toString());
        }
    }
}
