package org.uno.oneswitch.model;

import org.projectfloodlight.openflow.types.OFPort;

/**
 * The port numbers OneSwitch accepts, as Open vSwitch does: real ports 1 to {@value #MAX} (OVS's
 * range, so that ovs-ofctl and the bridges can show every rule), and the reserved ports from
 * OFPP_MAX (0xffffff00) up. Numbers in between are refused: OVS refuses them too, and a rule
 * holding one made ovs-ofctl drop the whole flow-stats message it was in (hundreds of rules).
 */
public final class PortNumbers {
    /** The highest real port number (0xfeff). */
    public static final long MAX = 0xfeffL;
    private static final long FIRST_RESERVED = 0xffffff00L;

    private PortNumbers() {
    }

    /** True for a real port number or a reserved port. */
    public static boolean valid(OFPort p) {
        long n = Integer.toUnsignedLong(p.getPortNumber());
        return n <= MAX || n >= FIRST_RESERVED;
    }
}
