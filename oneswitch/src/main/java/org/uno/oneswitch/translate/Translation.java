package org.uno.oneswitch.translate;

import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalRule;

import java.util.List;
import java.util.Objects;

/**
 * Everything one virtual rule or group needs on the physical switches: its flow entries
 * (instances, deliveries of the tags it pushes) and groups (localised groups, tag groups).
 *
 * <p>Most rules translate to one entry and no group: that entry is kept without a list around it
 * (one object fewer per rule for the collector to copy), and {@link #flows} wraps it on reading.
 */
public final class Translation {
    /** Nothing (a rule on an unmapped port, or a removed rule). */
    public static final Translation EMPTY = new Translation(List.of(), List.of());

    private final PhysicalRule one;           // the only entry, or null
    private final List<PhysicalRule> flows;   // the entries when there are not exactly one, else null
    private final List<PhysicalGroup> groups;

    public Translation(List<PhysicalRule> flows, List<PhysicalGroup> groups) {
        List<PhysicalRule> copy = List.copyOf(flows);
        this.one = copy.size() == 1 ? copy.get(0) : null;
        this.flows = one == null ? copy : null;
        this.groups = List.copyOf(groups);
    }

    public List<PhysicalRule> flows() {
        return one != null ? List.of(one) : flows;
    }

    public List<PhysicalGroup> groups() {
        return groups;
    }

    public boolean isEmpty() {
        return one == null && flows.isEmpty() && groups.isEmpty();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Translation t && Objects.equals(one, t.one) && Objects.equals(flows, t.flows)
                && groups.equals(t.groups);
    }

    @Override
    public int hashCode() {
        return 31 * flows().hashCode() + groups.hashCode();
    }

    @Override
    public String toString() {
        return "Translation[flows=" + flows() + ", groups=" + groups + "]";
    }
}
