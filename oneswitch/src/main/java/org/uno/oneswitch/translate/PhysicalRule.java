package org.uno.oneswitch.translate;

import java.util.List;
import java.util.Objects;

import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.RuleKey;

/**
 * One flow entry a virtual rule needs on one physical switch (ports are physical).
 *
 * @param switchId     the physical switch (platform id)
 * @param key          table, priority and match on that switch
 * @param instructions what the entry does
 * @param role         whether its counters are the virtual rule's counters
 * @param origin       what packets it may see on a link port (see {@link Origin})
 */
public record PhysicalRule(String switchId, RuleKey key, List<Instruction> instructions, Role role, Origin origin) {
    /** Whether a physical rule counts the virtual rule's packets. */
    public enum Role {
        /** The rule where packets enter: its counters are the virtual rule's (each packet once). */
        COUNTING,
        /** A rule on a link port that carries packets on to their egress: not counted. */
        FORWARDING
    }

    public PhysicalRule {
        Objects.requireNonNull(switchId, "switchId");
        Objects.requireNonNull(key, "key");
        instructions = List.copyOf(instructions);
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(origin, "origin");
    }

    /** The switch and key that identify this entry among all physical entries. */
    public PhysicalKey physicalKey() {
        return new PhysicalKey(switchId, key);
    }

    @Override
    public String toString() {
        return switchId + ":" + key + " -> " + instructions + " (" + role + ", " + origin + ")";
    }
}
