package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.projectfloodlight.openflow.types.U32;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.VirtualRule;

/**
 * Keeps OpenFlow's rule that a group in the action set wins over an output, whatever the order the
 * tables wrote them in. Physically every action-set output is a group too (see {@link Localizer}),
 * and there the later write wins. So the pipeline of each switch carries one bit, in a register
 * controllers cannot see or set ({@link Layout#ACTION_SET_REGISTER}, Open vSwitch's reg7): "the action set holds a group".
 *
 * <ul>
 *   <li>A rule that writes a group sets it; a rule that clears the action set (and writes no group)
 *       resets it. Only rules that continue to a later table need to.</li>
 *   <li>A rule of a later table that writes an output has two entries: one for packets whose action
 *       set holds no group (the output written, as before) and one for packets whose action set
 *       holds a group (the output left out: on one switch it would never run, since only
 *       clear_actions takes a group out of the action set, and it takes the output too).</li>
 * </ul>
 *
 * <p>Open vSwitch starts every packet with its registers at 0, and they never cross a link: a
 * delivered packet runs no virtual table. Pure.
 */
final class ActionSetFlag {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    static final OFOxm<?> NO_GROUP = OF13.oxms().reg7(U32.of(0));
    static final OFOxm<?> HOLDS_GROUP = OF13.oxms().reg7(U32.of(1));

    private ActionSetFlag() {
    }

    /** The value {@code rule} leaves in the flag for later tables, or null when it leaves it as it is. */
    static OFOxm<?> setBy(VirtualRule rule) {
        if (!continues(rule)) {
            return null;
        }
        if (written(rule, Action.Group.class)) {
            return HOLDS_GROUP;
        }
        return clears(rule) && rule.table() > 0 ? NO_GROUP : null;
    }

    /**
     * True when {@code rule} needs an entry per value of the flag: it writes an output and no
     * group, does not clear the action set first, and an earlier table may have written a group.
     */
    static boolean splits(VirtualRule rule) {
        return rule.table() > 0 && !clears(rule) && !written(rule, Action.Group.class)
                && written(rule, Action.Output.class);
    }

    /** {@code instructions} with the action-set outputs left out (the entry for a set that holds a group). */
    static List<Instruction> withoutSetOutputs(List<Instruction> instructions) {
        List<Instruction> out = new ArrayList<>(instructions.size());
        for (Instruction i : instructions) {
            if (i instanceof Instruction.WriteActions w) {
                List<Action> kept = w.actions().stream().filter(a -> !(a instanceof Action.Output)).toList();
                if (!kept.isEmpty()) {
                    out.add(new Instruction.WriteActions(kept));
                }
            } else {
                out.add(i);
            }
        }
        return out;
    }

    /** Physical {@code instructions} that also set the flag to {@code value} (at the end of apply-actions). */
    static List<Instruction> setting(List<Instruction> instructions, OFOxm<?> value) {
        Action set = new Action.Other(OF13.actions().setField(value));
        List<Instruction> out = new ArrayList<>(instructions.size() + 1);
        boolean added = false;
        for (Instruction i : instructions) {
            if (i instanceof Instruction.ApplyActions a) {
                List<Action> actions = new ArrayList<>(a.actions());
                actions.add(set);
                out.add(new Instruction.ApplyActions(actions));
                added = true;
            } else {
                out.add(i);
            }
        }
        if (!added) {
            out.add(0, new Instruction.ApplyActions(List.of(set)));
        }
        return out;
    }

    private static boolean continues(VirtualRule rule) {
        return rule.instructions().stream().anyMatch(i -> i instanceof Instruction.GotoTable);
    }

    private static boolean clears(VirtualRule rule) {
        return rule.instructions().stream().anyMatch(i -> i instanceof Instruction.ClearActions);
    }

    private static boolean written(VirtualRule rule, Class<? extends Action> kind) {
        for (Instruction i : rule.instructions()) {
            if (i instanceof Instruction.WriteActions w && w.actions().stream().anyMatch(kind::isInstance)) {
                return true;
            }
        }
        return false;
    }
}
