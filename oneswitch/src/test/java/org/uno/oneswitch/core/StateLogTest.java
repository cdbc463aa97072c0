package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModCommand;
import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.uno.oneswitch.error.FlowModFailedException;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.testing.StateFixture;

/**
 * The state file's log on the event loop, with the writer played by the test: group commit,
 * acknowledgements only once on disk, undo and refusal after a failed write, recovery.
 */
class StateLogTest {
    private final StateFixture f = new StateFixture();
    private final StateFixture.Sink sink = new StateFixture.Sink();
    private final StateLog log = f.vs.state();

    StateLogTest() throws Exception {
        CompletableFuture<Void> started = log.start(sink);
        f.runTimers(0);
        assertEquals(1, sink.snapshots.size(), "the first snapshot replaces the file at start");
        sink.snapshotsWritten();
        assertTrue(started.isDone());
    }

    private void rule(int port) throws Exception {
        f.add(0, 10, match(inPort(port)), apply(out(3)));
    }

    private List<Long> ids(ChangeBatch b) {
        return b.rules().stream().map(VirtualRule::id).toList();
    }

    @Test
    void changesMadeWhileARecordIsWrittenShareTheNextRecord() throws Exception {
        rule(1);
        f.runTimers(0);
        assertEquals(1, sink.appended.size());
        CompletableFuture<Void> first = log.durable();
        rule(2);
        rule(3);
        f.runTimers(0);
        f.add(1, 5, match(inPort(2)), apply(out(1)));
        f.runTimers(0);
        assertEquals(1, sink.appended.size(), "nothing else is written while a record is being synced");
        CompletableFuture<Void> second = log.durable();
        assertFalse(first.isDone(), "a barrier reply waits for the disk");

        sink.commit();
        assertTrue(first.isDone());
        assertFalse(second.isDone());
        assertEquals(2, sink.appended.size(), "the next record goes as soon as the previous one is on disk");
        ChangeBatch next = sink.appended.get(1);
        assertEquals(3, next.rules().size(), "three flow_mods, one record, one sync");
        assertTrue(sink.appended.get(0).tags().isPresent(), "the first rule to the sNIC's port allocated a tag");
        assertTrue(next.tags().isEmpty(), "tags are written only when they changed");
        assertEquals(sink.appended.get(0).seq() + 1, next.seq());
        sink.commit();
        assertTrue(second.isDone() && !second.isCompletedExceptionally());
        assertTrue(log.durable().isDone(), "nothing left to wait for");
    }

    @Test
    void aRecordHoldsTheValuesNowAndWhatWasRemoved() throws Exception {
        rule(1);
        f.runTimers(0);
        sink.commit();
        long durableRule = sink.appended.get(0).rules().get(0).id();
        rule(2);
        f.delete(0, 10, match(inPort(2)));
        f.delete(0, 10, match(inPort(1)));
        f.runTimers(0);
        ChangeBatch b = sink.appended.get(1);
        assertEquals(List.of(), ids(b), "a rule added and removed again before its record is not in it");
        assertEquals(List.of(durableRule), b.removedRules());
    }

    @Test
    void aFailedWriteUndoesWhatIsNotOnDiskAndRefusesItsRequestsBeforeTheBarrierReply() throws Exception {
        rule(1);
        f.runTimers(0);
        sink.commit();
        f.net.takeSent("host");
        f.net.takeSent("snic0");
        List<String> heard = new ArrayList<>();
        long mark = log.mark();
        rule(2);
        log.onLost(mark, r -> heard.add("refused 2"));
        f.runTimers(0);
        mark = log.mark();
        rule(3);
        log.onLost(mark, r -> heard.add("refused 3"));
        log.durable().whenComplete((v, t) -> heard.add(t == null ? "barrier ok" : "barrier after errors"));
        assertEquals(3, f.vs.virtualRuleCount());

        sink.fail("No space left on device");
        assertEquals(List.of("refused 2", "refused 3", "barrier after errors"), heard);
        assertEquals(1, f.vs.virtualRuleCount(), "only what is on disk is kept");
        List<OFMessage> sent = new ArrayList<>(f.net.takeSent("host"));
        sent.addAll(f.net.takeSent("snic0"));
        long deletes = sent.stream().filter(m -> m instanceof OFFlowMod fm
                && fm.getCommand() == OFFlowModCommand.DELETE_STRICT && fm.getTableId().getValue() == 1).count();
        assertEquals(2, deletes, "and the switches follow");
        assertTrue(log.status().degraded().orElseThrow().contains("No space left"));
        assertThrows(FlowModFailedException.class, () -> log.requireWritable(r -> new FlowModFailedException(
                OFFlowModFailedCode.EPERM, r)));
        assertEquals(1, log.status().refusedRequests());
        assertEquals(2, log.status().undoneRequests());

        f.runTimers(StateLog.RETRY_MIN_MS);
        assertEquals(2, sink.snapshots.size(), "a snapshot is tried again after a second");
        SavedState again = sink.snapshots.get(1);
        assertEquals(1, again.rules().size());
        assertTrue(sink.snapshotSeqs.get(1) > sink.appended.get(1).seq(), "taken after the failure");
        sink.snapshotsWritten();
        assertTrue(log.unavailable().isEmpty(), "written again: changes are accepted");
        rule(4);
        f.runTimers(0);
        assertEquals(sink.snapshotSeqs.get(1) + 1, sink.appended.get(sink.appended.size() - 1).seq());
    }

    @Test
    void aSnapshotThatFailsToBeWrittenIsTriedAgainLater() throws Exception {
        rule(1);
        f.runTimers(0);
        sink.fail("Read-only file system");
        f.runTimers(StateLog.RETRY_MIN_MS);
        sink.pendingSnapshots.poll().completeExceptionally(new java.io.IOException("Read-only file system"));
        assertTrue(log.unavailable().isPresent());
        f.runTimers(StateLog.RETRY_MIN_MS);
        assertEquals(2, sink.snapshots.size(), "the next try waits longer");
        f.runTimers(2 * StateLog.RETRY_MIN_MS);
        assertEquals(3, sink.snapshots.size());
        sink.snapshotsWritten();
        assertTrue(log.unavailable().isEmpty());
    }

    @Test
    void aSnapshotSavesTheRulesCountersBySwitch() throws Exception {
        rule(1);
        f.runTimers(0);
        sink.commit();
        List<OFMessage> sent = f.net.takeSent("host");
        OFFlowMod entry = (OFFlowMod) sent.stream().filter(m -> m instanceof OFFlowMod fm
                && fm.getCommand() == OFFlowModCommand.ADD && fm.getTableId().getValue() == 1).findFirst().orElseThrow();
        f.net.count(entry.getCookie(), 48, 4704);
        log.close();
        f.runTimers(0);
        SavedState last = sink.snapshots.get(sink.snapshots.size() - 1);
        RuleCounters c = last.counters().get(last.rules().get(0).id());
        assertEquals(new Counts(48, 4704), c.bySwitch().get("host"));
        assertEquals(Counts.ZERO, c.carried());
        sink.snapshotsWritten();

        f.net.count(entry.getCookie(), 1000, 98000);
        log.snapshotWanted();
        SavedState compacted = sink.snapshots.get(sink.snapshots.size() - 1);
        assertEquals(c, compacted.counters().get(last.rules().get(0).id()),
                "a compaction saves what the last counted snapshot read, without dumping the switches' tables");
    }
}
