package org.uno.oneswitch.model;

import java.util.List;
import java.util.Objects;

import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;

/**
 * One bucket of a group: weight (SELECT), liveness watch (FAST_FAILOVER) and the actions, which
 * Open vSwitch executes as an action set (at most one output, a group replacing any output).
 * Ports are virtual in a {@link VirtualGroup} and physical in a physical group.
 */
public record Bucket(int weight, OFPort watchPort, OFGroup watchGroup, List<Action> actions) {
    public Bucket {
        Objects.requireNonNull(watchPort, "watchPort");
        Objects.requireNonNull(watchGroup, "watchGroup");
        actions = List.copyOf(actions);
    }

    /** A bucket without weight or watch (ALL and INDIRECT groups). */
    public static Bucket of(List<Action> actions) {
        return new Bucket(0, OFPort.ANY, OFGroup.ANY, actions);
    }

    /** The same bucket with other actions. */
    public Bucket withActions(List<Action> next) {
        return new Bucket(weight, watchPort, watchGroup, next);
    }
}
