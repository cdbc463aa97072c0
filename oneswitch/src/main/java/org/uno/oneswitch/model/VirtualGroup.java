package org.uno.oneswitch.model;

import java.util.List;
import java.util.Objects;

import org.projectfloodlight.openflow.protocol.OFGroupType;

/**
 * A group of the virtual switch as the controller installed it (ports in buckets are virtual).
 *
 * @param id      the group id (below {@code OFPG_MAX} and outside OneSwitch's reserved range)
 * @param type    ALL, SELECT, INDIRECT or FAST_FAILOVER
 * @param buckets the buckets, in order (bucket order decides SELECT and FAST_FAILOVER choices)
 */
public record VirtualGroup(long id, OFGroupType type, List<Bucket> buckets) {
    public VirtualGroup {
        Objects.requireNonNull(type, "type");
        buckets = List.copyOf(buckets);
    }

    /** The groups this group's buckets apply (chained groups). */
    public List<Long> referencedGroups() {
        return buckets.stream().flatMap(b -> b.actions().stream()).filter(a -> a instanceof Action.Group)
                .map(a -> Integer.toUnsignedLong(((Action.Group) a).group().getGroupNumber())).distinct().toList();
    }
}
