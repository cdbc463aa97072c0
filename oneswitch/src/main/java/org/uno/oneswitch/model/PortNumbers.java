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

    /**
     * True for a port an output may name, as Open vSwitch takes it: a real port number or 0 (an output
     * to a port the switch does not have does nothing), and the reserved ports a switch outputs to
     * (ANY and the unnamed reserved numbers are refused, BAD_OUT_PORT).
     */
    public static boolean isOutput(OFPort p) {
        return Integer.toUnsignedLong(p.getPortNumber()) <= MAX || p.equals(OFPort.LOCAL) || p.equals(OFPort.FLOOD)
                || p.equals(OFPort.ALL) || p.equals(OFPort.IN_PORT) || p.equals(OFPort.CONTROLLER)
                || p.equals(OFPort.TABLE) || p.equals(OFPort.NORMAL);
    }

    /** True for a real port number or a reserved port. */
    public static boolean valid(OFPort p) {
        long n = Integer.toUnsignedLong(p.getPortNumber());
        return n <= MAX || n >= FIRST_RESERVED;
    }
}
