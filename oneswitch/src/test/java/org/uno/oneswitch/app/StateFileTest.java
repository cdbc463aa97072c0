package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.group;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.core.ControllerNotifier;
import org.uno.oneswitch.core.PortRequest;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.RecordingNetwork;
import org.uno.oneswitch.translate.InstalledEntry;

/** The state file: what a restarted OneSwitch gets back is what it had, and it plans the same entries. */
class StateFileTest {
    @TempDir
    Path dir;

    private static VirtualSwitch fresh() {
        ControllerNotifier none = new ControllerNotifier() {
            @Override
            public void packetIn(org.projectfloodlight.openflow.protocol.OFPacketIn msg) {
            }

            @Override
            public void portStatus(org.projectfloodlight.openflow.protocol.OFPortStatus msg) {
            }

            @Override
            public void flowRemoved(org.projectfloodlight.openflow.protocol.OFFlowRemoved msg) {
            }
        };
        return new VirtualSwitch(DatapathId.of(7), 8, Fixtures.topology(1), new RecordingNetwork(Fixtures.topology(1)),
                none, () -> 5_000_000_000L, (ms, task) -> {
                }, 1000);
    }

    private static void add(VirtualSwitch vs, int table, int priority, FlowMatch m, List<org.uno.oneswitch.model.Instruction> ins)
            throws Exception {
        vs.flows().flowMod(new FlowModRequest(FlowModRequest.Command.ADD, new FlowFilter(table, m, true, priority,
                U64.ZERO, U64.ZERO, OFPort.ANY, OFGroup.ANY), ins, U64.of(0xabc), Set.of(OFFlowModFlags.SEND_FLOW_REM),
                30, 0), (s, e) -> {
                });
    }

    @Test
    void aRestartedSwitchPlansTheSameEntries() throws Exception {
        VirtualSwitch before = fresh();
        for (var m : Fixtures.ports(1).mappings()) {
            before.ports().add(new PortRequest(m.physical().switchId(), m.physicalName(), null,
                    (long) m.virtualPort().getPortNumber(), m.name()));
        }
        before.groups().groupMod(new GroupModRequest(GroupModRequest.Command.ADD, new VirtualGroup(4, OFGroupType.ALL,
                List.of(Bucket.of(List.of(out(3))), Bucket.of(List.of(out(2)))))), (s, e) -> {
                });
        add(before, 0, 10, match(inPort(1)), apply(out(3)));
        add(before, 0, 20, match(inPort(2)), apply(group(4)));
        add(before, 1, 5, FlowMatch.ANY, apply(out(OFPort.FLOOD)));
        Path file = dir.resolve("state.json");
        SavedState saved = before.save(6_000_000_000L);
        StateFile.write(file, saved);

        SavedState loaded = StateFile.load(file, 8).orElseThrow();
        assertEquals(undated(saved.rules()), undated(loaded.rules()));
        assertEquals(saved.groups(), loaded.groups());
        assertEquals(saved.ports(), loaded.ports());
        assertEquals(saved.tags(), loaded.tags());
        assertEquals(Set.of(1000L), new HashSet<>(loaded.ageMillis().values()));

        VirtualSwitch after = fresh();
        after.restore(loaded, 9_000_000_000L);
        for (String sw : List.of("host", "snic0")) {
            assertEquals(keys(before.planner().plan().entries(sw)), keys(after.planner().plan().entries(sw)), sw);
        }
        assertEquals(before.planner().plan().groupCount(), after.planner().plan().groupCount());
        assertEquals(3, after.virtualRuleCount());
        assertEquals(8_000_000_000L, after.flows().rule(1).orElseThrow().installedNanos(), "age kept");
        assertTrue(after.planner().plan().nextCookie() >= before.planner().plan().nextCookie());
    }

    @Test
    void noFileIsNoStateAndABadFileIsRefused() throws Exception {
        assertTrue(StateFile.load(dir.resolve("missing.json"), 8).isEmpty());
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"schema\": \"something else\"}");
        assertThrows(ConfigException.class, () -> StateFile.load(bad, 8));
    }

    private static List<org.uno.oneswitch.model.VirtualRule> undated(List<org.uno.oneswitch.model.VirtualRule> rules) {
        return rules.stream().map(r -> r.toBuilder().installedNanos(0).build()).toList();
    }

    private static Set<String> keys(List<InstalledEntry> entries) {
        Set<String> out = new HashSet<>();
        entries.forEach(e -> out.add(e.key() + " " + e.instructions()));
        return out;
    }
}
