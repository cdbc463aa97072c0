package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.group;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFBadActionCode;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.protocol.OFPacketOut;
import org.projectfloodlight.openflow.protocol.action.OFActionGroup;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionApplyActions;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.stats.GroupCounters;
import org.uno.oneswitch.testing.RecordingNetwork;
import org.uno.oneswitch.testing.StateFixture;
import org.uno.oneswitch.translate.Layout;

/**
 * A controller may use every group id one Open vSwitch bridge accepts (up to OFPG_MAX), OneSwitch's
 * own ones included: such a group's copies get another id on the switches, which the rules and
 * groups applying or watching it use, and which the controller never sees.
 */
class PhysicalGroupIdsTest {
    private static final long TAG_ONE = Layout.TAG_GROUP_BASE + Layout.FIRST_TAG;
    private static final long FIRST_ALIAS = Layout.FIRST_RESERVED_GROUP - 1;

    private final StateFixture f = new StateFixture();

    PhysicalGroupIdsTest() throws Exception {
    }

    @Test
    void aGroupWithOneOfOneSwitchsIdsWorksBesideTheGroupOfThatId() throws Exception {
        // V3 is on snic0: the host's rule for V1 sends over the link through the first tag's group (TAG_ONE).
        f.add(0, 10, match(inPort(1)), apply(out(3)));
        addGroup(TAG_ONE, out(2));
        f.add(0, 20, match(inPort(2)), apply(group(TAG_ONE)));

        assertEquals(Map.of(TAG_ONE, FIRST_ALIAS), physicalIds());
        assertTrue(groupIds("host").contains(TAG_ONE), "the tag group is still there");
        assertTrue(groupIds("host").contains(FIRST_ALIAS), "and the controller's group under another id");
        assertEquals(List.of(FIRST_ALIAS), appliedGroups("host", 3), "V2's rule applies the controller's group");
        assertEquals(List.of(TAG_ONE), f.vs.groups().all().stream().map(VirtualGroup::id).toList(),
                "the controller sees its own id");
        List<GroupCounters> stats = f.vs.stats().groupStats(OFGroup.of((int) TAG_ONE), f.vs.groups().all(),
                List.copyOf(f.vs.flows().all())).join();
        assertEquals(1, stats.size());
        assertEquals(TAG_ONE, stats.get(0).group());
        assertEquals(RecordingNetwork.COPY_COUNTS.plus(RecordingNetwork.COPY_COUNTS), stats.get(0).total(),
                "its copies on the host and snic0, not the first tag's group (on the host only)");
        assertEquals(1, stats.get(0).refCount());
    }

    @Test
    void anIdIsKeptForTheGroupsLifeAndFreedWithIt() throws Exception {
        addGroup(TAG_ONE, out(2));
        addGroup(FIRST_ALIAS, out(1));   // its own id is TAG_ONE's copies': it takes the next
        addGroup(7, out(1));
        assertEquals(Map.of(TAG_ONE, FIRST_ALIAS, FIRST_ALIAS, FIRST_ALIAS - 1, 7L, 7L), physicalIds());

        f.vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.MODIFY, new VirtualGroup(TAG_ONE,
                OFGroupType.ALL, List.of(Bucket.of(List.of(out(3)))))), (s, e) -> { });
        assertEquals(FIRST_ALIAS, physicalIds().get(TAG_ONE), "a modify keeps it");

        delete(TAG_ONE);
        assertTrue(!groupIds("host").contains(FIRST_ALIAS), "its copies are gone");
        addGroup(Layout.ABSENT_GROUP, out(2));
        assertEquals(FIRST_ALIAS, physicalIds().get(Layout.ABSENT_GROUP), "the freed id is given again");
    }

    @Test
    void aWatchedGroupIsWatchedUnderItsIdOnTheSwitchesAndNothingIsWatchedBeforeItExists() throws Exception {
        VirtualGroup ff = new VirtualGroup(5, OFGroupType.FF, List.of(
                new Bucket(0, OFPort.ANY, OFGroup.of((int) TAG_ONE), List.of(out(2))),
                new Bucket(0, OFPort.of(1), OFGroup.ANY, List.of(out(1)))));
        f.vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.ADD, ff), (s, e) -> { });
        assertEquals(Layout.ABSENT_GROUP, hostWatchGroup(5), "not the tag group of that id");

        addGroup(TAG_ONE, out(2));
        assertEquals(FIRST_ALIAS, hostWatchGroup(5), "the watcher follows the group's coming");
        delete(TAG_ONE);
        assertEquals(Layout.ABSENT_GROUP, hostWatchGroup(5), "and its going");
    }

    @Test
    void aPacketOutAppliesTheGroupsCopiesAndARuleOrPacketOutNamingNoGroupIsRefused() throws Exception {
        addGroup(TAG_ONE, out(2));
        f.net.takeSent("host");
        f.vs.packets().packetOut(OFPort.CONTROLLER, List.of(group(TAG_ONE), out(1)), new byte[60], (s, e) -> { });
        List<Long> sent = f.net.takeSent("host").stream().filter(m -> m instanceof OFPacketOut)
                .flatMap(m -> ((OFPacketOut) m).getActions().stream()).filter(a -> a instanceof OFActionGroup)
                .map(a -> Integer.toUnsignedLong(((OFActionGroup) a).getGroup().getGroupNumber())).toList();
        assertEquals(List.of(FIRST_ALIAS), sent, "the copy's id");
        BadActionException e = assertThrows(BadActionException.class, () -> f.vs.packets().packetOut(OFPort.CONTROLLER,
                List.of(group(TAG_ONE + 1), out(1)), new byte[60], (s, x) -> { }));
        assertEquals(OFBadActionCode.BAD_OUT_GROUP, e.code(), "tag group 2 is not the controller's");
        e = assertThrows(BadActionException.class, () -> f.add(0, 20, match(inPort(2)), apply(group(TAG_ONE + 1))));
        assertEquals(OFBadActionCode.BAD_OUT_GROUP, e.code());
    }

    private void addGroup(long id, Action action) throws Exception {
        f.vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.ADD, new VirtualGroup(id, OFGroupType.ALL,
                List.of(Bucket.of(List.of(action))))), (s, e) -> { });
    }

    private void delete(long id) throws Exception {
        f.vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.DELETE, new VirtualGroup(id,
                OFGroupType.ALL, List.of())), (s, e) -> { });
    }

    /** Each group's physical id, by group id. */
    private Map<Long, Long> physicalIds() {
        Map<Long, Long> out = new TreeMap<>();
        f.vs.groups().all().forEach(g -> out.put(g.id(), g.physicalId()));
        return out;
    }

    private List<Long> groupIds(String switchId) {
        return f.net.groups(switchId).stream().map(g -> Integer.toUnsignedLong(g.getGroup().getGroupNumber())).toList();
    }

    /** The groups that {@code switchId}'s pipeline entries for physical in_port {@code inPort} apply. */
    private List<Long> appliedGroups(String switchId, int inPort) {
        return f.net.pipeline(switchId).stream()
                .filter(m -> m.getMatch().get(MatchField.IN_PORT) != null
                        && m.getMatch().get(MatchField.IN_PORT).getPortNumber() == inPort)
                .flatMap(m -> m.getInstructions().stream())
                .filter(i -> i instanceof OFInstructionApplyActions)
                .flatMap(i -> ((OFInstructionApplyActions) i).getActions().stream())
                .filter(a -> a instanceof OFActionGroup)
                .map(a -> Integer.toUnsignedLong(((OFActionGroup) a).getGroup().getGroupNumber())).toList();
    }

    private long hostWatchGroup(long groupId) {
        OFGroupMod g = f.net.groups("host").stream().filter(m -> m.getGroup().getGroupNumber() == (int) groupId)
                .findFirst().orElseThrow();
        return Integer.toUnsignedLong(g.getBuckets().get(0).getWatchGroup().getGroupNumber());
    }
}
