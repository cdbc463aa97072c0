package org.uno.oneswitch.plan;

import java.util.List;
import java.util.Objects;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.Instruction;

/**
 * One change to a physical switch's flow table so that it follows the plan.
 *
 * @param kind         add a new entry, modify an entry's instructions, or delete an entry
 * @param key          the entry (switch, table, priority, match)
 * @param instructions the entry's instructions (new ones; for DELETE the ones it had)
 * @param cookie       the entry's cookie (OneSwitch's handle for stats and packet-ins)
 * @param role         what the entry is for
 * @param tag          the flow-id tag a delivery entry matches, else 0
 */
public record PhysicalChange(Kind kind, PhysicalKey key, List<Instruction> instructions, U64 cookie,
                             PhysicalRule.Role role, int tag) implements PlanChange {
    /** What to do with the entry. */
    public enum Kind {
        ADD, MODIFY, DELETE
    }

    public PhysicalChange {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        instructions = List.copyOf(instructions);
        Objects.requireNonNull(cookie, "cookie");
        Objects.requireNonNull(role, "role");
    }

    @Override
    public String switchId() {
        return key.switchId();
    }

    @Override
    public String toString() {
        return kind + " " + key + (kind == Kind.DELETE ? "" : " -> " + instructions) + " cookie=" + cookie;
    }
}
