package org.uno.oneswitch.plan;

import java.util.List;
import java.util.Objects;

import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.uno.oneswitch.model.Bucket;

/**
 * One group something needs on one physical switch: a controller's group with its buckets
 * localised to the switch, or a tag group that pushes a flow-id tag and sends the packet over
 * the PCIe link(s).
 *
 * @param switchId the physical switch
 * @param groupId  the group id (a tag group's is {@code Layout.TAG_GROUP_BASE} + tag)
 * @param type     the group type
 * @param buckets  the buckets, with physical ports
 * @param tag      the tag a tag group pushes, else 0
 */
public record PhysicalGroup(String switchId, long groupId, OFGroupType type, List<Bucket> buckets, int tag) {
    public PhysicalGroup {
        Objects.requireNonNull(switchId, "switchId");
        Objects.requireNonNull(type, "type");
        buckets = List.copyOf(buckets);
    }

    /** The switch and id that identify this group. */
    public GroupKey groupKey() {
        return new GroupKey(switchId, groupId);
    }

    /** A group's identity on the physical switches. */
    public record GroupKey(String switchId, long groupId) {
        public GroupKey {
            Objects.requireNonNull(switchId, "switchId");
        }

        @Override
        public String toString() {
            return switchId + ":group=" + Long.toUnsignedString(groupId);
        }
    }
}
