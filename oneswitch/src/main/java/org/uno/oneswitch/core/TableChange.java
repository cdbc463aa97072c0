package org.uno.oneswitch.core;

import java.util.List;

import org.uno.oneswitch.model.VirtualRule;

/**
 * What one flow_mod does to the virtual flow tables: rules to store (new, replacing one with the
 * same id, or modified) and rules to remove.
 */
public record TableChange(List<VirtualRule> upserts, List<VirtualRule> removals) {
    public TableChange {
        upserts = List.copyOf(upserts);
        removals = List.copyOf(removals);
    }

    public boolean isEmpty() {
        return upserts.isEmpty() && removals.isEmpty();
    }
}
