package org.uno.oneswitch.core;

import java.util.Objects;

import org.projectfloodlight.openflow.protocol.OFPacketInReason;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.FlowMatch;

/**
 * A packet the virtual switch sends to its controllers, in virtual terms: the virtual table and the
 * virtual rule's cookie, the match with the virtual in_port.
 *
 * @param reason   why (no match, an action, ...)
 * @param table    the virtual table
 * @param cookie   the virtual rule's cookie
 * @param match    the packet's match fields, in_port virtual
 * @param totalLen the packet's full length
 * @param data     the packet (up to miss_send_len)
 */
public record VirtualPacketIn(OFPacketInReason reason, int table, U64 cookie, FlowMatch match, int totalLen,
                              byte[] data) {
    public VirtualPacketIn {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(match, "match");
    }
}
