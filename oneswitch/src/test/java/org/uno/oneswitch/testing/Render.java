package org.uno.oneswitch.testing;

import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

import org.projectfloodlight.openflow.protocol.action.OFActionSetField;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.translate.PhysicalChange;
import org.uno.oneswitch.translate.PhysicalRule;

/** Stable, readable text for physical rules, as golden files hold them. */
public final class Render {
    private Render() {
    }

    public static String rules(List<PhysicalRule> rules) {
        return rules.stream().map(Render::rule).sorted().collect(Collectors.joining("\n")) + "\n";
    }

    public static String rule(PhysicalRule r) {
        return r.switchId() + " table=" + r.key().table() + " priority=" + r.key().priority() + " " + r.key().match()
                + " actions=" + instructions(r.instructions()) + " [" + r.role().name().toLowerCase() + ", "
                + r.origin() + "]";
    }

    public static String changes(List<PhysicalChange> changes) {
        return changes.stream().sorted(Comparator.comparing(PhysicalChange::toString))
                .map(c -> c.kind() + " " + c.key().switchId() + " " + c.key().key()
                        + (c.kind() == PhysicalChange.Kind.DELETE ? "" : " actions=" + instructions(c.instructions())))
                .collect(Collectors.joining("\n")) + "\n";
    }

    public static String instructions(List<Instruction> ins) {
        return ins.stream().map(Render::instruction).collect(Collectors.joining(" "));
    }

    private static String instruction(Instruction i) {
        if (i instanceof Instruction.ApplyActions a) {
            return a.actions().isEmpty() ? "drop" : actions(a.actions());
        } else if (i instanceof Instruction.WriteActions w) {
            return "write(" + actions(w.actions()) + ")";
        } else if (i instanceof Instruction.GotoTable g) {
            return "goto:" + g.table();
        }
        return i.toString();
    }

    private static String actions(List<Action> actions) {
        return actions.stream().map(a -> a instanceof Action.Other o && o.raw() instanceof OFActionSetField sf
                ? "set:" + sf.getField().getMatchField().getName() + "=" + sf.getField().getValue()
                : a.toString()).collect(Collectors.joining(","));
    }
}
