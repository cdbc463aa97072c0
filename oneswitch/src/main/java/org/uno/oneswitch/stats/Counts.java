package org.uno.oneswitch.stats;

import java.util.Arrays;
import java.util.List;

/** Packet and byte counters. */
public record Counts(long packets, long bytes) {
    public static final Counts ZERO = new Counts(0, 0);

    public Counts plus(Counts o) {
        return new Counts(packets + o.packets, bytes + o.bytes);
    }

    /**
     * The {@code n} counters of several copies of one thing (a group's buckets, a meter's bands),
     * added index by index; a copy reporting fewer counts zero for the rest.
     */
    public static List<Counts> sumEach(int n, List<List<Counts>> copies) {
        Counts[] sum = new Counts[n];
        Arrays.fill(sum, ZERO);
        for (List<Counts> c : copies) {
            for (int i = 0; i < Math.min(n, c.size()); i++) {
                sum[i] = sum[i].plus(c.get(i));
            }
        }
        return List.of(sum);
    }
}
