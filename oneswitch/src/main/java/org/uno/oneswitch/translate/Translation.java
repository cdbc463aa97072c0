package org.uno.oneswitch.translate;

import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalRule;

import java.util.List;

/**
 * Everything one virtual rule or group needs on the physical switches: its flow entries
 * (instances, deliveries of the tags it pushes) and groups (localised groups, tag groups).
 */
public record Translation(List<PhysicalRule> flows, List<PhysicalGroup> groups) {
    /** Nothing (a rule on an unmapped port, or a removed rule). */
    public static final Translation EMPTY = new Translation(List.of(), List.of());

    public Translation {
        flows = List.copyOf(flows);
        groups = List.copyOf(groups);
    }

    public boolean isEmpty() {
        return flows.isEmpty() && groups.isEmpty();
    }
}
