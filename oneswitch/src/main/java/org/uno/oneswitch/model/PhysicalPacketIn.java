package org.uno.oneswitch.model;

import java.util.Objects;

import org.projectfloodlight.openflow.protocol.OFPacketInReason;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;

/**
 * A packet a physical switch sent to OneSwitch, in its terms: the physical table and entry cookie,
 * the match fields with the physical in_port.
 */
public record PhysicalPacketIn(OFPacketInReason reason, int table, U64 cookie, FlowMatch match, int totalLen,
                               byte[] data) {
    public PhysicalPacketIn {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(match, "match");
    }

    /** The port it came in on (null if the switch did not say). */
    public OFPort inPort() {
        return match.inPort().orElse(null);
    }
}
