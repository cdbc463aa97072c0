package org.uno.oneswitch.stats;

import java.util.List;

/** A group's counters: the packets it processed and each bucket's, and how many rules point at it. */
public record GroupCounters(long group, long refCount, Counts total, List<Counts> buckets) {
    public GroupCounters {
        buckets = List.copyOf(buckets);
    }
}
