package org.uno.oneswitch.core;

import java.util.LinkedHashSet;
import java.util.OptionalLong;
import java.util.Set;

import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.translate.Translation;

/**
 * Where a meter's rate holds exactly. A rule's packets are metered where its counting entries are,
 * the switches where they enter; a meter is a token bucket on one switch, so its rate holds for
 * the virtual switch only when every rule that applies it has its entries on one and the same
 * switch: rules that match an in_port on that switch (or any rule when only one switch has
 * virtual ports). Pure.
 */
final class MeterUse {
    private MeterUse() {
    }

    /** The meter {@code r} applies, if any. */
    static OptionalLong meterOf(VirtualRule r) {
        for (Instruction i : r.instructions()) {
            if (i instanceof Instruction.Meter m) {
                return OptionalLong.of(m.meterId());
            }
        }
        return OptionalLong.empty();
    }

    /** The switches where {@code t}'s counting entries (those that apply a rule's instructions) are. */
    static Set<String> switchesOf(Translation t) {
        Set<String> out = new LinkedHashSet<>();
        t.flows().stream().filter(r -> r.role() == PhysicalRule.Role.COUNTING).forEach(r -> out.add(r.switchId()));
        return out;
    }
}
