package org.uno.oneswitch.translate;

import java.util.List;
import java.util.Objects;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.Instruction;

/**
 * One change to make on a physical switch so that its flow table follows the plan.
 *
 * @param kind         add a new entry, modify an entry's instructions, or delete an entry
 * @param key          the entry (switch, table, priority, match)
 * @param instructions the entry's new instructions (empty for DELETE)
 * @param cookie       the entry's cookie (OneSwitch's handle for stats and packet-ins)
 */
public record PhysicalChange(Kind kind, PhysicalKey key, List<Instruction> instructions, U64 cookie) {
    /** What to do with the entry. */
    public enum Kind {
        ADD, MODIFY, DELETE
    }

    public PhysicalChange {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        instructions = List.copyOf(instructions);
        Objects.requireNonNull(cookie, "cookie");
    }

    @Override
    public String toString() {
        return kind + " " + key + (kind == Kind.DELETE ? "" : " -> " + instructions) + " cookie=" + cookie;
    }
}
