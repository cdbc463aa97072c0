package org.uno.oneswitch.plan;

import java.util.List;
import java.util.Objects;

import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.InstructionLists;
import org.uno.oneswitch.model.RuleKey;

/**
 * One flow entry something needs on one physical switch (ports are physical).
 *
 * @param physicalKey  the physical switch (platform id) and the table, priority and match on it; kept
 *                     whole, so that the plan's index of entries shares it rather than making its own
 * @param instructions what the entry does
 * @param role         what the entry is for
 * @param tag          the flow-id tag the entry matches (delivery entries), else 0
 */
public record PhysicalRule(PhysicalKey physicalKey, List<Instruction> instructions, Role role, int tag) {
    /** What a physical entry is for. */
    public enum Role {
        /** A virtual rule on a switch where its packets enter: its counters are the virtual rule's. */
        COUNTING,
        /** Delivers packets carrying a flow-id tag that arrive over a PCIe link; not counted. */
        DELIVERY,
        /** OneSwitch's own entries of the dispatch table (pipeline entry, link drops, drain markers). */
        INFRASTRUCTURE,
        /** NORMAL's tables and notices (see {@code translate/NormalPipeline}), shared by every user; not counted. */
        NORMAL
    }

    public PhysicalRule {
        Objects.requireNonNull(physicalKey, "physicalKey");
        instructions = InstructionLists.of(instructions);
        Objects.requireNonNull(role, "role");
    }

    /** An entry on {@code switchId} with {@code key} (table, priority, match). */
    public PhysicalRule(String switchId, RuleKey key, List<Instruction> instructions, Role role, int tag) {
        this(new PhysicalKey(switchId, key), instructions, role, tag);
    }

    /** The physical switch (platform id). */
    public String switchId() {
        return physicalKey.switchId();
    }

    /** Table, priority and match on the switch. */
    public RuleKey key() {
        return physicalKey.key();
    }

    @Override
    public String toString() {
        return physicalKey + " -> " + instructions + " (" + role + (tag != 0 ? ", tag " + tag : "") + ")";
    }
}
