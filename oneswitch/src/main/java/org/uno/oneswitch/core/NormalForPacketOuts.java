package org.uno.oneswitch.core;

import java.util.function.LongSupplier;

import org.uno.oneswitch.error.TranslationConflictException;

/**
 * NORMAL's tables for packet-outs. A packet-out that outputs to NORMAL runs NORMAL's tables on its
 * ingress switch, and those are planned only while a rule or group outputs to NORMAL. Such a
 * packet-out brings them (the caller sends it once every switch has them: NORMAL may send it on
 * over a link), and they stay until NORMAL's MAC aging time has passed since the last one: by then
 * one bridge would have forgotten what those packet-outs taught it too. Event loop only.
 */
final class NormalForPacketOuts {
    private final PlanService planner;
    private final Timers timers;
    private final Gate gate;
    /** Nanoseconds. */
    private final LongSupplier clock;
    private final long agingMillis;
    private long lastUse;
    private boolean kept;

    NormalForPacketOuts(PlanService planner, Timers timers, Gate gate, LongSupplier clock, long agingMillis) {
        this.planner = planner;
        this.timers = timers;
        this.gate = gate;
        this.clock = clock;
        this.agingMillis = agingMillis;
    }

    /**
     * A packet-out outputs to NORMAL; returns whether this sent NORMAL's tables to the switches (then
     * the packet-out must wait until they are in effect), false when they were there.
     */
    boolean used() throws TranslationConflictException {
        lastUse = clock.getAsLong();
        if (kept) {
            return false;
        }
        boolean sent = planner.keepNormalForPacketOuts(true);
        kept = true;
        timers.schedule(agingMillis, this::expire);
        return sent;
    }

    /**
     * Takes the tables away once the aging time has passed since the last use. It looks behind the gate: a
     * remap in progress holds every plan change, and packet-outs held with it may run first when it opens.
     */
    private void expire() {
        gate.whenOpen(() -> {
            long left = agingMillis - (clock.getAsLong() - lastUse) / 1_000_000;
            if (left > 0) {
                timers.schedule(left, this::expire);
                return;
            }
            try {
                planner.keepNormalForPacketOuts(false);
            } catch (TranslationConflictException e) {
                throw new IllegalStateException("taking NORMAL's tables away cannot conflict", e);
            }
            kept = false;
        });
    }
}
