package org.uno.oneswitch.model;

import java.util.Objects;

/**
 * A validated group_mod on the virtual switch.
 *
 * @param command add, modify or delete
 * @param group   the group (for DELETE only its id counts; {@link #ALL} deletes every group)
 */
public record GroupModRequest(Command command, VirtualGroup group) {
    /** The group id meaning "all groups" (OFPG_ALL). */
    public static final long ALL = 0xfffffffcL;

    /** The three OpenFlow group_mod commands. */
    public enum Command {
        ADD, MODIFY, DELETE
    }

    public GroupModRequest {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(group, "group");
    }
}
