package org.uno.oneswitch.log;

import org.slf4j.Logger;

/**
 * A warning that a peer can trigger at will, logged at most once per interval with the number of
 * times it was suppressed meanwhile (Open vSwitch's VLOG_RATE_LIMIT): a misbehaving peer must not
 * be able to fill the disk or drown the log.
 */
public final class RateLimitedLog {
    private final long intervalNanos;
    private long lastNanos;
    private boolean logged;
    private long suppressed;

    public RateLimitedLog(long intervalMillis) {
        this.intervalNanos = intervalMillis * 1_000_000;
    }

    /** Logs a warning unless one was logged less than the interval ago; not thread-safe (one event loop). */
    public void log(Logger log, String format, Object... args) {
        long now = System.nanoTime();
        if (logged && now - lastNanos < intervalNanos) {
            suppressed++;
            return;
        }
        if (suppressed > 0) {
            log.warn("({} similar messages suppressed)", suppressed);
            suppressed = 0;
        }
        logged = true;
        lastNanos = now;
        log.warn(format, args);
    }
}
