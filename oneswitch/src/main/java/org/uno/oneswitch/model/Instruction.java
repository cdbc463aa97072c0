package org.uno.oneswitch.model;

import java.util.List;

import org.projectfloodlight.openflow.types.U64;

/**
 * One OpenFlow 1.3 instruction of a flow entry. Action lists are immutable copies, so instructions
 * compare by value: two rules with equal instruction lists behave the same.
 */
public sealed interface Instruction
        permits Instruction.ApplyActions, Instruction.WriteActions, Instruction.ClearActions,
                Instruction.GotoTable, Instruction.WriteMetadata, Instruction.Meter {

    /**
     * Instruction lists recur across rules (a learning switch's thousands of rules output to a
     * handful of ports): entries keep one shared copy of each, which saves a rule five objects on
     * each side of the translation, and with them most of the garbage collector's copying.
     */
    Interner<List<Instruction>> LISTS = new Interner<>(4096);

    /** An immutable copy of {@code instructions}, shared with the equal lists other entries keep. */
    static List<Instruction> intern(List<Instruction> instructions) {
        return LISTS.intern(List.copyOf(instructions));
    }

    /** Apply the actions immediately. */
    record ApplyActions(List<Action> actions) implements Instruction {
        public ApplyActions {
            actions = List.copyOf(actions);
        }
    }

    /** Merge the actions into the action set. */
    record WriteActions(List<Action> actions) implements Instruction {
        public WriteActions {
            actions = List.copyOf(actions);
        }
    }

    /** Clear the action set. */
    record ClearActions() implements Instruction {
    }

    /** Continue in a later table. */
    record GotoTable(int table) implements Instruction {
    }

    /** Write metadata under a mask. */
    record WriteMetadata(U64 value, U64 mask) implements Instruction {
    }

    /** Apply a meter. */
    record Meter(long meterId) implements Instruction {
    }
}
