package org.uno.oneswitch.core;

import java.util.List;
import java.util.Optional;

import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.stats.MeterFeatures;

/**
 * What a physical switch reported when it connected: its flow, group and meter tables (for
 * reconciliation) and its meter features (empty when it has no meter support).
 */
public record SwitchTables(List<InstalledEntry> entries, List<PhysicalGroup> groups, List<VirtualMeter> meters,
                           Optional<MeterFeatures> meterFeatures) {
    public SwitchTables {
        entries = List.copyOf(entries);
        groups = List.copyOf(groups);
        meters = List.copyOf(meters);
    }
}
