package org.uno.oneswitch.plan;

import java.util.Objects;

/**
 * One change to a physical switch's group table so that it follows the plan.
 *
 * @param kind  add, modify (new buckets) or delete
 * @param group the group as it must be (for DELETE: as it was)
 */
public record GroupChange(PhysicalChange.Kind kind, PhysicalGroup group) implements PlanChange {
    public GroupChange {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(group, "group");
    }

    @Override
    public String switchId() {
        return group.switchId();
    }

    @Override
    public String toString() {
        return kind + " " + group.groupKey() + (kind == PhysicalChange.Kind.DELETE ? "" : " " + group.type() + " "
                + group.buckets());
    }
}
