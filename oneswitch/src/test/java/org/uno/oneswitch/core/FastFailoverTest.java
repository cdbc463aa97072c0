package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.RecordingNetwork;
import org.uno.oneswitch.testing.RecordingNotifier;

/**
 * A fast-failover bucket watching a port on another switch follows that port's liveness: the
 * watching switch's group is rewritten when the far switch reports the port down or up again.
 */
class FastFailoverTest {
    private final RecordingNetwork net = new RecordingNetwork(Fixtures.topology(1));
    private final List<OFMessage> toController = new ArrayList<>();
    private final VirtualSwitch vs = new VirtualSwitch(DatapathId.of(9), 8, Fixtures.topology(1), net,
            new RecordingNotifier(toController), () -> 0L, (ms, task) -> { }, 1000);

    @Test
    void aBucketWatchingARemotePortFollowsItsLiveness() throws Exception {
        vs.ports().autoMap(EnumSet.of(PortSpec.Kind.VM, PortSpec.Kind.WIRE));  // 1, 2 on the host; 3 = snic0:2
        vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.ADD, new VirtualGroup(5, OFGroupType.FF, List.of(
                        new Bucket(0, OFPort.of(3), OFGroup.ANY, List.of(Fixtures.out(3))),
                        new Bucket(0, OFPort.of(2), OFGroup.ANY, List.of(Fixtures.out(2)))))), (s, e) -> { });
        assertEquals(1L, hostWatch(), "live: the host's bucket watches the PCIe link toward snic0");
        assertEquals(1, groupMods("snic0").size(), "snic0's copy");

        net.link("snic0", OFPort.of(2), false);
        vs.portsChanged("snic0");
        assertEquals(0xfefeL, hostWatch(), "down on snic0: the host's bucket watches a port that is never live");
        assertEquals(List.of(), groupMods("snic0"), "snic0 watches its own port and needs no change");

        net.link("snic0", OFPort.of(2), true);
        vs.portsChanged("snic0");
        assertEquals(1L, hostWatch(), "up again: back to the link");
    }

    /** The port the host's copy of group 5 watches in its first bucket, from the last group_mod sent to it. */
    private long hostWatch() {
        List<OFGroupMod> mods = groupMods("host");
        return mods.get(mods.size() - 1).getBuckets().get(0).getWatchPort().getPortNumber();
    }

    private List<OFGroupMod> groupMods(String switchId) {
        return net.takeSent(switchId).stream().filter(m -> m instanceof OFGroupMod g && g.getGroup().getGroupNumber() == 5)
                .map(m -> (OFGroupMod) m).toList();
    }
}
