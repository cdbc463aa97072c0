package org.uno.oneswitch.model;

import java.util.List;
import java.util.Objects;

import org.projectfloodlight.openflow.protocol.OFGroupType;

/**
 * A group of the virtual switch as the controller installed it (ports in buckets are virtual).
 *
 * @param id         the group id the controller gave it (0..{@code OFPG_MAX})
 * @param type       ALL, SELECT, INDIRECT or FAST_FAILOVER
 * @param buckets    the buckets, in order (bucket order decides SELECT and FAST_FAILOVER choices)
 * @param physicalId the id of its copies on the physical switches: {@code id} unless that is one of
 *                   OneSwitch's own group ids or another group's (see {@code core/PhysicalGroupIds})
 */
public record VirtualGroup(long id, OFGroupType type, List<Bucket> buckets, long physicalId) {
    public VirtualGroup {
        Objects.requireNonNull(type, "type");
        buckets = List.copyOf(buckets);
    }

    /** A group whose copies have its own id (as the controller sent it, before OneSwitch gives it its physical id). */
    public VirtualGroup(long id, OFGroupType type, List<Bucket> buckets) {
        this(id, type, buckets, id);
    }

    /** The same group with its copies under {@code physical}. */
    public VirtualGroup withPhysicalId(long physical) {
        return new VirtualGroup(id, type, buckets, physical);
    }

    /** The groups this group's buckets apply (chained groups). */
    public List<Long> referencedGroups() {
        return buckets.stream().flatMap(b -> b.actions().stream()).filter(a -> a instanceof Action.Group)
                .map(a -> Integer.toUnsignedLong(((Action.Group) a).group().getGroupNumber())).distinct().toList();
    }
}
