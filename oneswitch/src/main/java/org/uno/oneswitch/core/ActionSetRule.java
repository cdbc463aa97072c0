package org.uno.oneswitch.core;

import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.VirtualRule;

/**
 * The one combination of action sets the translation cannot keep: a rule that writes a group into
 * the action set and a rule in a later table that writes an output. On one switch the group wins
 * whatever the order; physically every action-set output is a group too (see
 * {@code translate.Localizer}), so the one written last would win. Such a rule set is refused,
 * whichever of the two rules comes second.
 *
 * <p>Invariant: the counters hold, per table, how many installed rules write a group and how many
 * write an output into the action set.
 */
final class ActionSetRule {
    private static final int TABLES = 256;
    private final int[] groupWriters = new int[TABLES];
    private final int[] outputWriters = new int[TABLES];

    /** Refuses {@code r} if it would meet a rule of the other kind in the wrong table order. */
    void check(VirtualRule r) throws TranslationConflictException {
        if (writesGroup(r)) {
            for (int t = r.table() + 1; t < TABLES; t++) {
                if (outputWriters[t] > 0) {
                    throw conflict(r, "a rule of table " + t + " writes an output");
                }
            }
        }
        if (writesOutput(r)) {
            for (int t = 0; t < r.table(); t++) {
                if (groupWriters[t] > 0) {
                    throw conflict(r, "a rule of table " + t + " writes a group");
                }
            }
        }
    }

    void add(VirtualRule r) {
        count(r, 1);
    }

    void remove(VirtualRule r) {
        count(r, -1);
    }

    private void count(VirtualRule r, int delta) {
        if (writesGroup(r)) {
            groupWriters[r.table()] += delta;
        }
        if (writesOutput(r)) {
            outputWriters[r.table()] += delta;
        }
    }

    private static TranslationConflictException conflict(VirtualRule r, String other) {
        return new TranslationConflictException("write-actions of " + r + " cannot be translated while " + other
                + " into the action set (on one switch the group wins in any order; translated, the last write "
                + "would)");
    }

    /** True when {@code r} writes anything into the action set (only those rules matter here). */
    static boolean writesActions(VirtualRule r) {
        for (Instruction i : r.instructions()) {
            if (i instanceof Instruction.WriteActions) {
                return true;
            }
        }
        return false;
    }

    private static boolean writesGroup(VirtualRule r) {
        return writes(r, Action.Group.class);
    }

    private static boolean writesOutput(VirtualRule r) {
        return writes(r, Action.Output.class);
    }

    private static boolean writes(VirtualRule r, Class<? extends Action> kind) {
        for (Instruction i : r.instructions()) {
            if (i instanceof Instruction.WriteActions w) {
                for (Action a : w.actions()) {
                    if (kind.isInstance(a)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
