package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.group;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.protocol.OFMeterFlags;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.core.RuleCounters;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.core.SwitchTables;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.MeterModRequest;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.stats.MeterFeatures;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.StateFixture;
import org.uno.oneswitch.translate.Layout;

/**
 * The state file: a snapshot and change records load as the state they describe, a restarted
 * OneSwitch plans the same entries, a torn last record is dropped, and every kind of damage is
 * refused with its reason.
 */
class StateFileTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final StateFixture f = new StateFixture();
    private final StateFixture.Sink sink = new StateFixture.Sink();
    /** The bodies of the records: the snapshot at start, then one per commit. */
    private final List<byte[]> bodies = new ArrayList<>();

    StateFileTest() throws Exception {
        f.vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.ADD, new VirtualGroup(4, OFGroupType.ALL,
                List.of(Bucket.of(List.of(out(3))), Bucket.of(List.of(out(2)))))), (s, e) -> {
                });
        f.add(2, 30, match(inPort(3)), apply(out(1), out(2)));
        f.vs.state().start(sink);
        f.runTimers(0);
        sink.snapshotsWritten();
        bodies.add(StateFile.snapshot(sink.snapshotSeqs.get(0), sink.snapshots.get(0)));
        f.add(0, 10, match(inPort(1)), apply(out(3)));
        f.add(0, 20, match(inPort(2)), apply(group(4)));
        commit();
        f.delete(0, 10, match(inPort(1)));
        f.add(1, 5, FlowMatch.ANY, apply(out(OFPort.FLOOD)));
        commit();
    }

    private void commit() {
        f.runTimers(0);
        sink.commit();
        bodies.add(StateFile.changes(sink.appended.get(sink.appended.size() - 1)));
    }

    private Path file(List<byte[]> recordBodies) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] b : recordBodies) {
            out.write(StateRecords.frame(b));
        }
        return write(out.toByteArray());
    }

    private Path write(byte[] bytes) throws Exception {
        Path p = dir.resolve("state-" + System.nanoTime() + ".json");
        Files.write(p, bytes);
        return p;
    }

    private static StateFile.Loaded load(Path p) throws ConfigException {
        return StateFile.load(p, 8).orElseThrow();
    }

    @Test
    void aSnapshotAndItsChangeRecordsLoadAsTheStateNowAndPlanTheSameEntries() throws Exception {
        StateFile.Loaded loaded = load(file(bodies));
        SavedState now = f.vs.save(f.now, 1_000_000);
        assertEquals(3, loaded.records());
        assertTrue(loaded.tornTail().isEmpty());
        assertEquals(undated(now.rules()), undated(loaded.state().rules()));
        assertEquals(now.groups(), loaded.state().groups());
        assertEquals(now.ports(), loaded.state().ports());
        assertEquals(now.tags(), loaded.state().tags());
        assertEquals(now.nextRuleId(), loaded.state().nextRuleId());

        StateFixture after = new StateFixture(false);
        after.vs.restore(loaded.state(), after.now, System.currentTimeMillis());
        for (String sw : List.of("host", "snic0")) {
            assertEquals(keys(f.vs.planner().plan().entries(sw)), keys(after.vs.planner().plan().entries(sw)), sw);
        }
        assertEquals(f.vs.planner().plan().groupCount(), after.vs.planner().plan().groupCount());
        assertTrue(after.vs.planner().plan().nextCookie() >= f.vs.planner().plan().nextCookie());
    }

    @Test
    void installTimesAndCountersSurvive() throws Exception {
        SavedState now = f.vs.save(f.now, 1_000_000_000L);
        VirtualRule r = now.rules().get(0);
        RuleCounters c = new RuleCounters(new Counts(2, 200), Map.of("host", new Counts(48, 4704)));
        SavedState loaded = load(file(List.of(StateFile.snapshot(0, now.withCounters(Map.of(r.id(), c))))))
                .state();
        assertEquals(c, loaded.counters().get(r.id()));
        assertEquals(now.installedMillis(), loaded.installedMillis());

        StateFixture after = new StateFixture(false);
        after.vs.restore(loaded, after.now, 1_000_030_000L);
        assertEquals(after.now - 30_000_000_000L, after.vs.flows().rule(r.id()).orElseThrow().installedNanos(),
                "the rule's age goes on from its wall-clock install time");
        assertEquals(new Counts(50, 4904), after.vs.flows().countersOf(List.of(r)).join().get(r.id()),
                "a restored rule counts what it counted before");
    }

    @Test
    void metersSurviveInTheSnapshotAndTheChangeRecords() throws Exception {
        MeterFeatures features = new MeterFeatures(100, 1 << 1, 0xf, 4, 0);
        for (String s : List.of("host", "snic0")) {
            f.vs.switchConnected(s, new SwitchTables(List.of(), List.of(), List.of(), Optional.of(features)));
        }
        f.vs.meters().meterMod(new MeterModRequest(MeterModRequest.Command.ADD, meter(1, 1000)), (s, e) -> {
        });
        f.vs.meters().meterMod(new MeterModRequest(MeterModRequest.Command.ADD, meter(2, 50)), (s, e) -> {
        });
        List<Instruction> metered = new ArrayList<>(List.of(new Instruction.Meter(2)));
        metered.addAll(apply(out(2)));
        f.add(0, 40, match(inPort(1)), metered);
        commit();
        f.vs.meters().meterMod(new MeterModRequest(MeterModRequest.Command.DELETE, meter(1, 0)), (s, e) -> {
        });
        f.vs.meters().meterMod(new MeterModRequest(MeterModRequest.Command.MODIFY, meter(2, 70)), (s, e) -> {
        });
        commit();

        SavedState loaded = load(file(bodies)).state();
        assertEquals(List.of(meter(2, 70)), loaded.meters());
        StateFixture after = new StateFixture(false);
        after.vs.restore(loaded, after.now, 1_000_000);
        assertEquals(List.of(meter(2, 70)), after.vs.meters().all());
        assertTrue(after.vs.flows().all().stream().anyMatch(r -> r.instructions().equals(metered)));
        SavedState again = load(file(List.of(StateFile.snapshot(0, after.vs.save(after.now, 1_000_000))))).state();
        assertEquals(loaded.meters(), again.meters());
    }

    private static VirtualMeter meter(long id, long pps) {
        return new VirtualMeter(id, Set.of(OFMeterFlags.PKTPS), List.of(Fixtures.OF13.meterBands().drop(pps, 0)));
    }

    @Test
    void noFileIsNoStateButAnEmptyFileIsDamage() throws Exception {
        assertTrue(StateFile.load(dir.resolve("missing.json"), 8).isEmpty());
        ConfigException e = assertThrows(ConfigException.class, () -> load(write(new byte[0])));
        assertTrue(e.getMessage().contains("is damaged: the file is empty"), e.getMessage());
    }

    @Test
    void aTornLastRecordIsDroppedAndEverythingBeforeItKept() throws Exception {
        byte[] whole = Files.readAllBytes(file(bodies));
        SavedState beforeLast = load(file(bodies.subList(0, 2))).state();
        int lastStart = StateRecords.frame(bodies.get(0)).length + StateRecords.frame(bodies.get(1)).length;
        for (int cut = lastStart + 1; cut < whole.length; cut += 7) {
            StateFile.Loaded l = load(write(java.util.Arrays.copyOf(whole, cut)));
            assertEquals(2, l.records(), "cut at " + cut);
            assertTrue(l.tornTail().isPresent());
            assertEquals(undated(beforeLast.rules()), undated(l.state().rules()));
        }
    }

    @Test
    void theSnapshotIsNeverATornTail() throws Exception {
        byte[] whole = Files.readAllBytes(file(bodies));
        ConfigException e = assertThrows(ConfigException.class, () -> load(write(java.util.Arrays.copyOf(whole,
                StateRecords.frame(bodies.get(0)).length - 5))));
        assertTrue(e.getMessage().contains("record 1 at byte 0: cut short"), e.getMessage());
    }

    @Test
    void aFlippedDigitFailsTheChecksumAndIsDamageUnlessInTheLastRecord() throws Exception {
        String snapshotWithFlip = flipInFlowMod(bodies.get(0));
        assertDamaged(List.of(snapshotWithFlip.getBytes(StandardCharsets.UTF_8), bodies.get(1), bodies.get(2)),
                "record 1 at byte 0: checksum mismatch", true);
        assertDamaged(List.of(bodies.get(0), flipInFlowMod(bodies.get(1)).getBytes(StandardCharsets.UTF_8),
                bodies.get(2)), "record 2 at byte", true);
        StateFile.Loaded l = load(corrupt(List.of(bodies.get(0), bodies.get(1),
                flipInFlowMod(bodies.get(2)).getBytes(StandardCharsets.UTF_8))));
        assertEquals(2, l.records(), "in the last record it looks like a torn write and is dropped");
    }

    @Test
    void everyPartOfEveryRecordIsChecked() throws Exception {
        Map<String, Consumer<ObjectNode>> snapshotDamage = Map.of(
                "the snapshot has no 'rules'", s -> s.remove("rules"),
                "'rules' must be a list, not object", s -> s.putObject("rules"),
                "the snapshot has no 'port_map'", s -> s.remove("port_map"),
                "the snapshot has no 'groups'", s -> s.remove("groups"),
                "the snapshot has an unknown field 'extra'", s -> s.put("extra", 1),
                "is not an OpenFlow 1.3 message", s -> setFlowMod(s, hex -> hex.substring(0, 4) + "ff" + hex.substring(6)),
                "is a flow_mod DELETE, not ADD", s -> setFlowMod(s, hex -> hex.substring(0, 50) + "03" + hex.substring(52)),
                "schema must be oneswitch-state/2", s -> s.put("schema", "oneswitch-state/1"));
        // a mapping's numbers: a bridge's port range or LOCAL (a larger virtual port could not be homed)
        Map<String, Consumer<ObjectNode>> mappingDamage = Map.of(
                "'virtual_port' must be a port number", m -> m.put("virtual_port", "1"),
                "'virtual_port' must be a port number from 1 to 65279 or LOCAL (4294967294), not 65280",
                m -> m.put("virtual_port", 65280),
                "'ofport' must be a port number from 1 to 65279 or LOCAL (4294967294), not 0", m -> m.put("ofport", 0));
        for (Map.Entry<String, Consumer<ObjectNode>> d : mappingDamage.entrySet()) {
            ObjectNode s = (ObjectNode) JSON.readTree(bodies.get(0));
            d.getValue().accept((ObjectNode) s.get("port_map").get(0));
            assertDamaged(List.of(JSON.writeValueAsBytes(s), bodies.get(1), bodies.get(2)), d.getKey(), false);
        }
        for (Map.Entry<String, Consumer<ObjectNode>> d : snapshotDamage.entrySet()) {
            ObjectNode s = (ObjectNode) JSON.readTree(bodies.get(0));
            d.getValue().accept(s);
            assertDamaged(List.of(JSON.writeValueAsBytes(s), bodies.get(1), bodies.get(2)), d.getKey(), false);
        }
        Map<String, Consumer<ObjectNode>> changeDamage = Map.of(
                "record number 5 follows 1", c -> c.put("seq", 5),
                "deletes rule 99, which does not exist", c -> ((ArrayNode) c.get("deleted_rules")).add(99),
                "a change record has no 'deleted_groups'", c -> c.remove("deleted_groups"));
        for (Map.Entry<String, Consumer<ObjectNode>> d : changeDamage.entrySet()) {
            ObjectNode c = (ObjectNode) JSON.readTree(bodies.get(2));
            d.getValue().accept(c);
            assertDamaged(List.of(bodies.get(0), bodies.get(1), JSON.writeValueAsBytes(c)), d.getKey(), false);
        }
    }

    @Test
    void aGroupsIdOnTheSwitchesSurvivesARestartAndIsChecked() throws Exception {
        long tagOne = Layout.TAG_GROUP_BASE + Layout.FIRST_TAG;
        long alias = Layout.FIRST_RESERVED_GROUP - 1;
        StateFixture g = new StateFixture();
        StateFixture.Sink s = new StateFixture.Sink();
        addGroup(g, tagOne);   // one of OneSwitch's ids: its copies get the alias
        g.vs.state().start(s);
        g.runTimers(0);
        s.snapshotsWritten();
        List<byte[]> records = new ArrayList<>(List.of(StateFile.snapshot(s.snapshotSeqs.get(0), s.snapshots.get(0))));
        addGroup(g, alias);    // the alias is taken: this one gets the next id down
        g.runTimers(0);
        s.commit();
        records.add(StateFile.changes(s.appended.get(s.appended.size() - 1)));

        SavedState loaded = load(file(records)).state();
        assertEquals(Map.of(tagOne, alias, alias, alias - 1), loaded.groups().stream()
                .collect(java.util.stream.Collectors.toMap(VirtualGroup::id, VirtualGroup::physicalId)));
        assertEquals(g.vs.save(g.now, 1_000_000).groups(), loaded.groups());

        ObjectNode clash = (ObjectNode) JSON.readTree(records.get(1));
        ((ObjectNode) clash.get("group_ids")).put(String.valueOf(alias), alias);
        assertDamaged(List.of(records.get(0), JSON.writeValueAsBytes(clash)), "both have physical id " + alias, false);
        ObjectNode reserved = (ObjectNode) JSON.readTree(records.get(0));
        reserved.remove("group_ids");
        assertDamaged(List.of(JSON.writeValueAsBytes(reserved)), "group " + tagOne + " has no physical id below", false);
        ObjectNode stranger = (ObjectNode) JSON.readTree(records.get(0));
        ((ObjectNode) stranger.get("group_ids")).put("9", 9);
        assertDamaged(List.of(JSON.writeValueAsBytes(stranger)), "names group 9, which this record does not write", false);
    }

    @Test
    void groupZeroIsAGroupLikeAnyOther() throws Exception {
        StateFixture g = new StateFixture();
        StateFixture.Sink s = new StateFixture.Sink();
        addGroup(g, 0);
        g.vs.state().start(s);
        g.runTimers(0);
        s.snapshotsWritten();
        List<byte[]> records = new ArrayList<>(List.of(StateFile.snapshot(s.snapshotSeqs.get(0), s.snapshots.get(0))));
        assertEquals(List.of(0L), load(file(records)).state().groups().stream().map(VirtualGroup::id).toList());
        g.vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.DELETE, new VirtualGroup(0, OFGroupType.ALL,
                List.of())), (x, e) -> { });
        g.runTimers(0);
        s.commit();
        records.add(StateFile.changes(s.appended.get(s.appended.size() - 1)));
        assertEquals(List.of(), load(file(records)).state().groups(), "its deletion loads too");
    }

    private static void addGroup(StateFixture g, long id) throws Exception {
        g.vs.groups().groupMod(new GroupModRequest(GroupModRequest.Command.ADD, new VirtualGroup(id, OFGroupType.ALL,
                List.of(Bucket.of(List.of(out(2)))))), (x, e) -> { });
    }

    /** Checks that the records (framed with valid checksums unless {@code corrupt}) are refused with {@code reason}. */
    private void assertDamaged(List<byte[]> records, String reason, boolean corrupt) throws Exception {
        Path p = corrupt ? corrupt(records) : file(records);
        ConfigException e = assertThrows(ConfigException.class, () -> load(p), reason);
        assertTrue(e.getMessage().contains("is damaged") && e.getMessage().contains(reason), reason + ": "
                + e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }

    /** A file whose records carry the checksums of {@link #bodies}, but the given bodies (so a change fails them). */
    private Path corrupt(List<byte[]> records) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < records.size(); i++) {
            byte[] good = StateRecords.frame(bodies.get(i));
            byte[] body = records.get(i);
            out.write(good, 0, good.length - bodies.get(i).length - 1);
            out.write(body);
            out.write('\n');
        }
        return write(out.toByteArray());
    }

    /** The record's JSON with one hex digit of its first stored flow_mod changed. */
    private static String flipInFlowMod(byte[] body) throws Exception {
        ObjectNode s = (ObjectNode) JSON.readTree(body);
        setFlowMod(s, hex -> hex.substring(0, hex.length() - 3) + (hex.charAt(hex.length() - 3) == '0' ? '1' : '0')
                + hex.substring(hex.length() - 2));
        return JSON.writeValueAsString(s);
    }

    private static void setFlowMod(ObjectNode record, java.util.function.UnaryOperator<String> change) {
        ObjectNode rule = (ObjectNode) record.get("rules").get(0);
        rule.put("flow_mod", change.apply(rule.get("flow_mod").asText()));
    }

    private static List<VirtualRule> undated(List<VirtualRule> rules) {
        return rules.stream().map(r -> r.toBuilder().installedNanos(0).build()).toList();
    }

    private static Set<String> keys(List<InstalledEntry> entries) {
        Set<String> out = new HashSet<>();
        entries.forEach(e -> out.add(e.key() + " " + e.instructions()));
        return out;
    }
}
