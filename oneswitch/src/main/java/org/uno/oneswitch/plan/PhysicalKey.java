package org.uno.oneswitch.plan;

import java.util.Objects;

import org.uno.oneswitch.model.RuleKey;

/** The identity of one physical flow entry: switch, table, priority, match. */
public record PhysicalKey(String switchId, RuleKey key) {
    public PhysicalKey {
        Objects.requireNonNull(switchId, "switchId");
        Objects.requireNonNull(key, "key");
    }

    @Override
    public String toString() {
        return switchId + ":" + key;
    }
}
