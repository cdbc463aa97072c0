package org.uno.oneswitch.stats;

import org.uno.oneswitch.model.VirtualRule;

/** A virtual rule with its counters and how long it has been installed: one entry of a FLOW stats reply. */
public record RuleStats(VirtualRule rule, Counts counts, long durationSec, long durationNsec) {
}
