package org.uno.oneswitch.core;

import java.util.Map;
import org.uno.oneswitch.stats.Counts;

/**
 * A virtual rule's counters as saved in the state file: the part OneSwitch holds itself
 * ({@code carried}: counts of entries the rule no longer has) and, per physical switch, the
 * counts of its counting entries there. Saved per switch because after a restart each switch
 * either still has the entries (its counters go on, the saved part is dropped) or lost them (the
 * saved part is carried).
 *
 * @param carried  counts OneSwitch holds for the rule
 * @param bySwitch switch id -> counts of the rule's counting entries on that switch
 */
public record RuleCounters(Counts carried, Map<String, Counts> bySwitch) {
    public static final RuleCounters ZERO = new RuleCounters(Counts.ZERO, Map.of());

    public RuleCounters {
        bySwitch = Map.copyOf(bySwitch);
    }

    /** All of it. */
    public Counts total() {
        Counts c = carried;
        for (Counts s : bySwitch.values()) {
            c = c.plus(s);
        }
        return c;
    }

    public boolean isZero() {
        return total().equals(Counts.ZERO);
    }
}
