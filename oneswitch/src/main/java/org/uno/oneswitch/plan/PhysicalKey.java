package org.uno.oneswitch.plan;

import java.util.Objects;

import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.RuleKey;

/**
 * The identity of one physical flow entry: switch, table, priority, match. Kept flat (every planned
 * entry keeps one, and a RuleKey inside it would be one more object for the collector to copy);
 * {@link #key} makes the RuleKey when asked.
 */
public record PhysicalKey(String switchId, int table, int priority, FlowMatch match) {
    public PhysicalKey {
        Objects.requireNonNull(switchId, "switchId");
        Objects.requireNonNull(match, "match");
    }

    /** The entry {@code key} (table, priority, match) on {@code switchId}. */
    public PhysicalKey(String switchId, RuleKey key) {
        this(switchId, key.table(), key.priority(), key.match());
    }

    /** Table, priority and match on the switch. */
    public RuleKey key() {
        return new RuleKey(table, priority, match);
    }

    @Override
    public String toString() {
        return switchId + ":" + key();
    }
}
