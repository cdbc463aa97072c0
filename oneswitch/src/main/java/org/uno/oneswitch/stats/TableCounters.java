package org.uno.oneswitch.stats;

/** A table's entry count, lookups and matches. */
public record TableCounters(int table, long active, long lookups, long matched) {
}
