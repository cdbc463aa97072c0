package org.uno.oneswitch.core;

/**
 * Runs tasks later on OneSwitch's event loop (the only thread that touches its state).
 * Implemented by the Netty event loop, and by a manual clock in tests.
 */
@FunctionalInterface
public interface Timers {
    void schedule(long delayMillis, Runnable task);
}
