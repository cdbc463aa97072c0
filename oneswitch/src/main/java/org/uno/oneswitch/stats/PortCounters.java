package org.uno.oneswitch.stats;

import org.projectfloodlight.openflow.types.OFPort;

/** A port's counters (OpenFlow 1.3 port stats). */
public record PortCounters(OFPort port, Counts rx, Counts tx, long rxDropped, long txDropped, long rxErrors,
                           long txErrors, long rxFrameErrors, long rxOverErrors, long rxCrcErrors, long collisions,
                           long durationSec, long durationNsec) {
    /** The same counters reported as port {@code number} (a physical port's, as its virtual port's). */
    public PortCounters as(OFPort number) {
        return new PortCounters(number, rx, tx, rxDropped, txDropped, rxErrors, txErrors, rxFrameErrors, rxOverErrors,
                rxCrcErrors, collisions, durationSec, durationNsec);
    }
}
