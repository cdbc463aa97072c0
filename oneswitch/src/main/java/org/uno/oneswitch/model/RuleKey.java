package org.uno.oneswitch.model;

import java.util.Objects;

/** The identity of a flow entry within one switch: table, priority and match (OpenFlow's "strict" key). */
public record RuleKey(int table, int priority, FlowMatch match) {
    public RuleKey {
        Objects.requireNonNull(match, "match");
    }

    @Override
    public String toString() {
        return "table=" + table + ",priority=" + priority + "," + match;
    }
}
