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

    /** The actions of an apply-actions or write-actions instruction (none for the others). */
    static List<Action> actionsOf(Instruction ins) {
        if (ins instanceof ApplyActions a) {
            return a.actions();
        }
        return ins instanceof WriteActions w ? w.actions() : List.of();
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
