package org.uno.oneswitch.plan;

/** A change to one physical switch: a flow entry ({@link PhysicalChange}) or a group ({@link GroupChange}). */
public sealed interface PlanChange permits PhysicalChange, GroupChange {
    /** The switch the change is for. */
    String switchId();
}
