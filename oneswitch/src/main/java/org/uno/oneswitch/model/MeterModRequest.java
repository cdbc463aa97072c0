package org.uno.oneswitch.model;

import java.util.Objects;

/**
 * A validated meter_mod on the virtual switch.
 *
 * @param command add, modify or delete
 * @param meter   the meter (for DELETE only its id counts; {@link #ALL} deletes every meter)
 */
public record MeterModRequest(Command command, VirtualMeter meter) {
    /** The largest meter id a controller may use (OFPM_MAX). */
    public static final long MAX = 0xffff0000L;

    /** The meter id meaning "all meters" (OFPM_ALL). */
    public static final long ALL = 0xffffffffL;

    /** The three OpenFlow meter_mod commands. */
    public enum Command {
        ADD, MODIFY, DELETE
    }

    public MeterModRequest {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(meter, "meter");
    }
}
