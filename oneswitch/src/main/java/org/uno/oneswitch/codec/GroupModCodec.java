package org.uno.oneswitch.codec;

import java.util.ArrayList;
import java.util.List;

import org.projectfloodlight.openflow.protocol.OFBucket;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFGroupModFailedCode;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.GroupModFailedException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.VirtualGroup;

/**
 * Decodes a group_mod of the virtual switch, refusing what the protocol forbids: out-of-range ids,
 * an INDIRECT group without exactly one bucket, a FAST_FAILOVER bucket that watches nothing,
 * SELECT weights of zero. What the virtual switch cannot honour (OneSwitch's own group ids,
 * bucket actions) is refused by {@code RuleValidator} before the group is translated.
 */
public final class GroupModCodec {
    /** The largest group id a controller may use (OFPG_MAX). */
    private static final long MAX_GROUP = 0xffffff00L;

    private GroupModCodec() {
    }

    public static GroupModRequest decode(OFGroupMod gm) throws OpenFlowException {
        GroupModRequest.Command command = switch (gm.getCommand()) {
            case ADD -> GroupModRequest.Command.ADD;
            case MODIFY -> GroupModRequest.Command.MODIFY;
            case DELETE -> GroupModRequest.Command.DELETE;
            default -> throw new GroupModFailedException(OFGroupModFailedCode.BAD_COMMAND, "group_mod command "
                    + gm.getCommand());
        };
        long id = Integer.toUnsignedLong(gm.getGroup().getGroupNumber());
        if (command == GroupModRequest.Command.DELETE) {
            if (id != GroupModRequest.ALL && id > MAX_GROUP) {
                throw new GroupModFailedException(OFGroupModFailedCode.INVALID_GROUP, "group id " + gm.getGroup());
            }
            return new GroupModRequest(command, new VirtualGroup(id, OFGroupType.ALL, List.of()));
        }
        if (id > MAX_GROUP) {
            throw new GroupModFailedException(OFGroupModFailedCode.INVALID_GROUP, "group id " + gm.getGroup()
                    + " is out of range");
        }
        OFGroupType type = gm.getGroupType();
        List<Bucket> buckets = new ArrayList<>();
        for (OFBucket b : gm.getBuckets()) {
            buckets.add(bucket(b, type));
        }
        if (type == OFGroupType.INDIRECT && buckets.size() != 1) {
            throw new GroupModFailedException(OFGroupModFailedCode.INVALID_GROUP, "an indirect group has exactly one "
                    + "bucket, not " + buckets.size());
        }
        return new GroupModRequest(command, new VirtualGroup(id, type, buckets));
    }

    private static Bucket bucket(OFBucket b, OFGroupType type) throws OpenFlowException {
        List<Action> actions = InstructionCodec.decodeActions(b.getActions(), null);
        boolean watches = !b.getWatchPort().equals(OFPort.ANY) || !b.getWatchGroup().equals(OFGroup.ANY);
        if (type == OFGroupType.FF && !watches) {
            throw new GroupModFailedException(OFGroupModFailedCode.BAD_WATCH, "a fast-failover bucket must watch a port "
                    + "or a group");
        }
        if (type == OFGroupType.SELECT && b.getWeight() == 0) {
            throw new GroupModFailedException(OFGroupModFailedCode.WEIGHT_UNSUPPORTED, "select buckets need a weight");
        }
        int weight = type == OFGroupType.SELECT ? b.getWeight() : 0;
        OFPort watchPort = type == OFGroupType.FF ? b.getWatchPort() : OFPort.ANY;
        OFGroup watchGroup = type == OFGroupType.FF ? b.getWatchGroup() : OFGroup.ANY;
        return new Bucket(weight, watchPort, watchGroup, actions);
    }
}
