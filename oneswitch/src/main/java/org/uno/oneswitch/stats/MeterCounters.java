package org.uno.oneswitch.stats;

import java.util.List;

/** A meter's counters: what entered it, what each band applied to, its age, and the rules applying it. */
public record MeterCounters(long meter, long flowCount, Counts in, List<Counts> bands, long durationSec,
                            long durationNsec) {
    public MeterCounters {
        bands = List.copyOf(bands);
    }
}
