package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPacketOut;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.translate.Owner;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.RecordingNetwork;
import org.uno.oneswitch.testing.RecordingNotifier;
import org.uno.oneswitch.testing.StateFixture;

/**
 * NORMAL's tables are planned once, while at least one rule or group outputs to NORMAL, or packet-outs did
 * within the MAC aging time: the first such user brings them, more share them, they follow the port map,
 * and they go with the last user.
 */
class NormalTablesTest {
    private final RecordingNetwork net = new RecordingNetwork(Fixtures.topology(1));
    private final VirtualSwitch vs = new VirtualSwitch(DatapathId.of(9), 8, Fixtures.topology(1), net,
            new RecordingNotifier(new ArrayList<OFMessage>()), () -> 0L, (ms, task) -> { }, 1000);

    @Test
    void theTablesComeWithTheFirstUserAndGoWithTheLast() throws Exception {
        vs.ports().autoMap(EnumSet.of(PortSpec.Kind.VM, PortSpec.Kind.WIRE));  // 1, 2 on the host; 3 = snic0:2
        int fixed = vs.physicalEntryCount();
        assertTrue(normalTables().isEmpty(), "no user, no tables");

        add(10, OFPort.NORMAL);
        int tables = normalTables().size();
        assertTrue(tables > 2 * 192, "both switches' tables: " + tables);
        assertEquals(fixed + tables + 2, vs.physicalEntryCount(), "the rule's own two entries, one per switch");

        add(20, OFPort.NORMAL);
        add(30, OFPort.of(3));
        assertEquals(tables, normalTables().size(), "shared, not per rule");
        assertEquals(fixed + tables + 6, vs.physicalEntryCount(), "rule 30's tag to port 3 has NORMAL's deliveries");

        vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.ADD, new VirtualGroup(5, OFGroupType.ALL,
                List.of(Bucket.of(List.of(out(OFPort.NORMAL)))))), (s, e) -> { });
        delete(10);
        delete(20);
        assertEquals(tables, normalTables().size(), "the group still outputs to NORMAL");
        vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.DELETE, new VirtualGroup(5, OFGroupType.ALL,
                List.of())), (s, e) -> { });
        assertTrue(normalTables().isEmpty(), "gone with the last user");
        assertEquals(fixed + 4, vs.physicalEntryCount(), "rule 30's entry on each switch and its tag's two deliveries");
    }

    @Test
    void theTablesFollowThePortMap() throws Exception {
        vs.ports().autoMap(EnumSet.of(PortSpec.Kind.VM, PortSpec.Kind.WIRE));
        add(10, OFPort.NORMAL);
        String before = normalTables().toString();
        assertTrue(before.contains("in_port=3"), before);  // VM 2's physical port on the host
        vs.ports().remove(OFPort.of(2));
        String after = normalTables().toString();
        assertFalse(after.contains("in_port=3"), "an unmapped port has no NORMAL entry: " + after);
    }

    @Test
    void aPacketOutToNormalBringsTheTablesBeforeItAndTheyStayTheMacAgingTimeAfterTheLastOne() throws Exception {
        StateFixture f = new StateFixture();
        f.net.takeSent("host");
        packetOutToNormal(f);
        List<OFMessage> sent = f.net.takeSent("host");
        int packetOut = sent.indexOf(sent.stream().filter(m -> m instanceof OFPacketOut).findFirst().orElseThrow());
        assertTrue(sent.subList(0, packetOut).stream().anyMatch(m -> m instanceof OFGroupMod)
                && sent.subList(0, packetOut).stream().filter(m -> m instanceof OFFlowMod).count() > 192,
                "NORMAL's group and tables first, on the same connection: " + sent.size());
        assertEquals(Map.of("host", 1, "snic0", 1), f.net.settled,
                "and in effect on every switch before it: NORMAL may send it across the link");
        int tables = tablesOf(f.vs).size();

        f.now += 200_000_000_000L;
        packetOutToNormal(f);
        assertEquals(1, f.net.takeSent("host").size(), "the tables are there: only the packet-out");
        assertEquals(1, f.net.settled.get("host"), "not settled again");
        f.now += 100_000_000_000L;
        f.runTimers(300_000);
        assertEquals(tables, tablesOf(f.vs).size(), "300 s after the first, 100 s after the second");
        f.now += 200_000_000_000L;
        f.runTimers(200_000);
        assertTrue(tablesOf(f.vs).isEmpty(), "the aging time after the last one");

        packetOutToNormal(f);
        f.add(0, 10, FlowMatch.ANY, apply(out(OFPort.NORMAL)));
        f.now += 300_000_000_000L;
        f.runTimers(300_000);
        assertEquals(tables, tablesOf(f.vs).size(), "a rule still outputs to NORMAL");
    }

    private static void packetOutToNormal(StateFixture f) throws Exception {
        f.vs.packets().packetOut(OFPort.CONTROLLER, List.of(out(OFPort.NORMAL)), new byte[60], (s, e) -> { });
    }

    private List<?> normalTables() {
        return tablesOf(vs);
    }

    private static List<?> tablesOf(VirtualSwitch vs) {
        return vs.planner().plan().translationOf(Owner.NORMAL).flows();
    }

    private void add(int priority, OFPort output) throws Exception {
        vs.flows().flowMod(new FlowModRequest(FlowModRequest.Command.ADD, filter(priority), apply(out(output)),
                U64.ZERO, Set.of(), 0, 0), (s, e) -> { });
    }

    private void delete(int priority) throws Exception {
        vs.flows().flowMod(new FlowModRequest(FlowModRequest.Command.DELETE_STRICT, filter(priority), List.of(),
                U64.ZERO, Set.of(), 0, 0), (s, e) -> { });
    }

    private static FlowFilter filter(int priority) {
        return new FlowFilter(0, FlowMatch.ANY, true, priority, U64.ZERO, U64.ZERO, OFPort.ANY, OFGroup.ANY);
    }
}
