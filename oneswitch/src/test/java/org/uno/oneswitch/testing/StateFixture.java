package org.uno.oneswitch.testing;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.core.ChangeBatch;
import org.uno.oneswitch.core.PortRequest;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.core.StateLog;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.Instruction;

/**
 * A virtual switch over in-memory switches (one host, one sNIC, their ports mapped) with timers
 * the test runs by hand, and a {@link Sink} standing in for the state file's writer, for the
 * tests of the state log and the file format.
 */
public final class StateFixture {
    public final RecordingNetwork net = new RecordingNetwork(Fixtures.topology(1));
    public final List<OFMessage> toController = new ArrayList<>();
    /** A task scheduled on the virtual switch's timers, and its delay. */
    public record Timer(long ms, Runnable task) {
    }

    public final List<Timer> timers = new ArrayList<>();
    public long now = 5_000_000_000L;
    public final VirtualSwitch vs = new VirtualSwitch(DatapathId.of(7), 8, Fixtures.topology(1), net,
            new RecordingNotifier(toController), () -> now, (ms, task) -> timers.add(new Timer(ms, task)), 1000);

    /** With the ports of {@link Fixtures#ports} mapped. */
    public StateFixture() throws Exception {
        this(true);
    }

    /** With the ports mapped, or (to restore a saved state into it) nothing at all. */
    public StateFixture(boolean mapPorts) throws Exception {
        if (!mapPorts) {
            return;
        }
        for (var m : Fixtures.ports(1).mappings()) {
            vs.ports().add(new PortRequest(m.physical().switchId(), m.physicalName(), null,
                    (long) m.virtualPort().getPortNumber(), m.name()));
        }
    }

    /**
     * Runs the tasks scheduled with a delay up to {@code ms} (as if that time had passed), and then
     * those they schedule with no delay.
     */
    public void runTimers(long ms) {
        List<Timer> due = timers.stream().filter(t -> t.ms() <= ms).toList();
        while (!due.isEmpty()) {
            timers.removeAll(due);
            due.forEach(t -> t.task().run());
            due = timers.stream().filter(t -> t.ms() == 0).toList();
        }
    }

    /** Adds a rule with SEND_FLOW_REM and cookie 0xabc. */
    public void add(int table, int priority, FlowMatch m, List<Instruction> ins) throws Exception {
        flowMod(FlowModRequest.Command.ADD, table, priority, m, ins);
    }

    /** Deletes the rule with exactly this table, priority and match. */
    public void delete(int table, int priority, FlowMatch m) throws Exception {
        flowMod(FlowModRequest.Command.DELETE_STRICT, table, priority, m, List.of());
    }

    private void flowMod(FlowModRequest.Command command, int table, int priority, FlowMatch m, List<Instruction> ins)
            throws Exception {
        vs.flows().flowMod(new FlowModRequest(command, new FlowFilter(table, m, true, priority, U64.ZERO,
                U64.ZERO, OFPort.ANY, OFGroup.ANY), ins, U64.of(0xabc),
                Set.of(OFFlowModFlags.SEND_FLOW_REM), 30, 0), (s, e) -> {
                });
    }

    /** The state file's writer, played by the test: it keeps what it is given and completes when told. */
    public static final class Sink implements StateLog.Sink {
        public final List<ChangeBatch> appended = new ArrayList<>();
        public final ArrayDeque<CompletableFuture<Void>> pendingAppends = new ArrayDeque<>();
        public final List<SavedState> snapshots = new ArrayList<>();
        public final List<Long> snapshotSeqs = new ArrayList<>();
        public final ArrayDeque<CompletableFuture<Void>> pendingSnapshots = new ArrayDeque<>();

        @Override
        public CompletableFuture<Void> append(ChangeBatch batch) {
            appended.add(batch);
            CompletableFuture<Void> f = new CompletableFuture<>();
            pendingAppends.add(f);
            return f;
        }

        @Override
        public void snapshotStarts(long seq) {
        }

        @Override
        public CompletableFuture<Void> snapshot(long seq, SavedState state) {
            snapshots.add(state);
            snapshotSeqs.add(seq);
            CompletableFuture<Void> f = new CompletableFuture<>();
            pendingSnapshots.add(f);
            return f;
        }

        /** The oldest record not answered yet is on disk. */
        public void commit() {
            pendingAppends.poll().complete(null);
        }

        /** The oldest record not answered yet could not be written. */
        public void fail(String reason) {
            pendingAppends.poll().completeExceptionally(new java.io.IOException(reason));
        }

        /** Every snapshot not answered yet is on disk. */
        public void snapshotsWritten() {
            while (!pendingSnapshots.isEmpty()) {
                pendingSnapshots.poll().complete(null);
            }
        }
    }
}
