package org.uno.oneswitch.stats;

import org.projectfloodlight.openflow.types.U64;

/** A physical flow entry's counters, by its cookie. */
public record EntryCounters(U64 cookie, Counts counts) {
}
