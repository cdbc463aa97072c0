package org.uno.oneswitch.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.store.ChangeListener;
import org.uno.oneswitch.store.IdTable;
import org.uno.oneswitch.store.PortMapStore;
import org.uno.oneswitch.store.VirtualFlowTable;
import org.uno.oneswitch.translate.TagSpace;

/**
 * The event-loop side of the state file: a write-ahead log with group commit, after ovsdb-server's
 * log. Every change of the stores is recorded with the value it replaced; the changes made while
 * one record is being written and synced are gathered into the next record, so one fsync covers
 * all of them however many flow_mods they were. Snapshots (with the rules' counters) replace the
 * journal when it has grown, and every {@value #SNAPSHOT_INTERVAL_MS} ms, on the writer's threads.
 *
 * <p>Invariants: {@link #durable()} completes only once every change made before the call is on
 * disk, and acknowledgements (barrier replies, REST answers) wait for it. A failed write makes the
 * log <em>degraded</em>: every change not on disk is undone (the stores go back to what the file
 * holds, and the switches follow), the requests that made them get errors instead of
 * acknowledgements, and new changes are refused until a snapshot of the current state is written
 * again (tried every second or so, backing off to {@value #RETRY_MAX_MS} ms). Event loop only;
 * without a writer (no state file) every change counts as durable at once.
 */
public final class StateLog implements ChangeListener {
    private static final Logger LOG = LoggerFactory.getLogger(StateLog.class);
    static final long RETRY_MIN_MS = 1000;
    static final long RETRY_MAX_MS = 10_000;
    /** A snapshot, with the counters, at least this often while there are rules. */
    static final long SNAPSHOT_INTERVAL_MS = 10 * 60 * 1000;

    /** Where records and snapshots are written (the state file); completes its futures on the event loop. */
    public interface Sink {
        /** Appends {@code batch} and syncs it to disk. */
        CompletableFuture<Void> append(ChangeBatch batch);

        /** A snapshot containing every record up to {@code seq} is coming: keep the records after it. */
        void snapshotStarts(long seq);

        /** Replaces the file by {@code state} (taken at record {@code seq}) and the records after it. */
        CompletableFuture<Void> snapshot(long seq, SavedState state);
    }

    /** What the log needs of the virtual switch. */
    interface Host {
        /** The state now. */
        SavedState save();

        /** {@code state} with the rules' counters read from the switches. */
        CompletableFuture<SavedState> withCounters(SavedState state);

        /** Puts back the values {@code undo} holds (what the file has) and makes the switches follow. */
        void revert(Undo undo);
    }

    /**
     * Values changes replaced, by key: what undoes them. A null rule, group or meter was absent; a
     * null port map was not changed.
     */
    record Undo(Map<Long, VirtualRule> rules, Map<Long, VirtualGroup> groups, Map<Long, VirtualMeter> meters,
                PortMap ports) {
    }

    /** How the state file is doing, for the health report. */
    public record Status(boolean enabled, Optional<String> degraded, long commits, long writeFailures,
                         long refusedRequests, long undoneRequests, long snapshots) {
    }

    /** Changes gathered for one record, the requests that made them, and who waits for them. */
    private static final class Batch {
        long seq;
        final Map<Long, VirtualRule> rules = new LinkedHashMap<>();
        final Map<Long, VirtualGroup> groups = new LinkedHashMap<>();
        final Map<Long, VirtualMeter> meters = new LinkedHashMap<>();
        PortMap ports;
        boolean portsChanged;
        final List<Consumer<String>> onLost = new ArrayList<>();
        CompletableFuture<Void> done;

        boolean isEmpty() {
            return rules.isEmpty() && groups.isEmpty() && meters.isEmpty() && !portsChanged;
        }

        CompletableFuture<Void> done() {
            if (done == null) {
                done = new CompletableFuture<>();
            }
            return done;
        }
    }

    private final VirtualFlowTable ruleTable;
    private final IdTable<VirtualGroup> groupTable;
    private final IdTable<VirtualMeter> meterTable;
    private final PortMapStore portMap;
    private final TagSpace tags;
    private final LongSupplier nextCookie;
    private final LongSupplier clock;
    private final Timers timers;
    private final Gate gate;
    private final Host host;
    private Sink sink;
    private Batch open = new Batch();
    private final ArrayDeque<Batch> submitted = new ArrayDeque<>();
    private long seq;
    private long changes;
    private long tagsWritten = -1;
    private boolean submitScheduled;
    private boolean recording = true;
    private CompletableFuture<Void> snapshotRunning;
    /** The counters the last counted snapshot read (by rule id): what the others save. */
    private Map<Long, RuleCounters> lastCounted = Map.of();
    private String degraded;
    /** The last record number when the log went degraded: only a later snapshot ends it. */
    private long degradedAt;
    private long retryMs = RETRY_MIN_MS;
    private long commits;
    private long writeFailures;
    private long refused;
    private long undone;
    private long snapshots;

    StateLog(VirtualFlowTable ruleTable, IdTable<VirtualGroup> groupTable, IdTable<VirtualMeter> meterTable,
             PortMapStore portMap, TagSpace tags, LongSupplier nextCookie, LongSupplier clock, Timers timers, Gate gate,
             Host host) {
        this.ruleTable = ruleTable;
        this.groupTable = groupTable;
        this.meterTable = meterTable;
        this.portMap = portMap;
        this.tags = tags;
        this.nextCookie = nextCookie;
        this.clock = clock;
        this.timers = timers;
        this.gate = gate;
        this.host = host;
    }

    /**
     * Starts logging every change to {@code to}, beginning with a snapshot of the state now (which
     * also replaces what the file held); the future completes when that snapshot is on disk.
     */
    public CompletableFuture<Void> start(Sink to) {
        sink = to;
        ruleTable.setListener(this);
        groupTable.setListener(this);
        meterTable.setListener(this);
        portMap.setListener(this);
        timers.schedule(SNAPSHOT_INTERVAL_MS, this::periodicSnapshot);
        return snapshot(true);
    }

    /** Whether changes are logged (a state file is configured). */
    public boolean enabled() {
        return sink != null;
    }

    /** Why changes cannot be made durable now, if they cannot. */
    public Optional<String> unavailable() {
        return Optional.ofNullable(degraded);
    }

    /** Throws {@code refusal}'s exception when changes cannot be made durable now. */
    public <E extends Exception> void requireWritable(Function<String, E> refusal) throws E {
        if (degraded != null) {
            refused++;
            throw refusal.apply("OneSwitch cannot save changes to its state file (" + degraded + ")");
        }
    }

    /** A mark to pass to {@link #onLost}: how many changes were recorded so far. */
    public long mark() {
        return changes;
    }

    /**
     * Runs {@code refuse} with the reason if the changes recorded since {@code mark} (one request's)
     * are undone because they could not be written; before anyone waiting on {@link #durable()}
     * for them hears of it, so that an error precedes the barrier reply after it.
     */
    public void onLost(long mark, Consumer<String> refuse) {
        if (sink != null && changes != mark) {
            open.onLost.add(refuse);
        }
    }

    /**
     * Completes once every change recorded so far is on disk, or exceptionally once they were
     * undone because they could not be written (their requests got errors first).
     */
    public CompletableFuture<Void> durable() {
        if (sink == null || degraded != null) {
            return CompletableFuture.completedFuture(null);
        }
        if (!open.isEmpty()) {
            kick();
            return open.done();
        }
        return submitted.isEmpty() ? CompletableFuture.completedFuture(null) : submitted.peekLast().done();
    }

    /** Asks for a snapshot soon (the journal has grown). */
    public void snapshotWanted() {
        if (degraded == null) {
            snapshot(false);
        }
    }

    /** Writes a snapshot with the counters now (at shutdown, after one running); completes when it is on disk. */
    public CompletableFuture<Void> close() {
        if (sink == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> running = snapshotRunning;
        return running == null || running.isDone() ? snapshot(true)
                : running.handle((v, t) -> null).thenCompose(v -> snapshot(true));
    }

    public Status status() {
        return new Status(sink != null, Optional.ofNullable(degraded), commits, writeFailures, refused, undone, snapshots);
    }

    @Override
    public void ruleChanged(long id, VirtualRule before) {
        record(open.rules, id, before);
    }

    @Override
    public void groupChanged(long id, VirtualGroup before) {
        record(open.groups, id, before);
    }

    @Override
    public void meterChanged(long id, VirtualMeter before) {
        record(open.meters, id, before);
    }

    /** Keeps the first value {@code id} had in the open batch (what undoes all of its changes). */
    private <V> void record(Map<Long, V> replaced, long id, V before) {
        if (recording) {
            if (!replaced.containsKey(id)) {
                replaced.put(id, before);
            }
            recorded();
        }
    }

    @Override
    public void portMapChanged(PortMap before) {
        if (recording) {
            if (!open.portsChanged) {
                open.ports = before;
                open.portsChanged = true;
            }
            recorded();
        }
    }

    private void recorded() {
        changes++;
    }

    /** An operation that changed the state is complete: its changes go into the next record. */
    public void changed() {
        if (sink != null) {
            kick();
        }
    }

    /**
     * Submits the open changes after the current task (so that everything read from the sockets in
     * one go shares a record), unless a record is being written: then when it is on disk.
     */
    private void kick() {
        if (!submitScheduled && submitted.isEmpty() && degraded == null && !open.isEmpty()) {
            submitScheduled = true;
            timers.schedule(0, () -> {
                submitScheduled = false;
                if (submitted.isEmpty()) {
                    submitOpen();
                }
            });
        }
    }

    /** Closes the open batch and sends it to be written (nothing when it is empty or the log is degraded). */
    private void submitOpen() {
        if (open.isEmpty() || degraded != null) {
            return;
        }
        Batch b = open;
        open = new Batch();
        b.seq = ++seq;
        submitted.add(b);
        sink.append(describe(b)).whenComplete((v, t) -> {
            if (t == null) {
                committed(b);
            } else {
                failed(b, t);
            }
        });
    }

    /** The record of {@code b}: the values now of everything it changed. */
    private ChangeBatch describe(Batch b) {
        List<VirtualRule> upserts = new ArrayList<>();
        List<Long> removed = new ArrayList<>();
        split(b.rules, ruleTable::byId, upserts, removed);
        List<VirtualGroup> groupUpserts = new ArrayList<>();
        List<Long> groupsRemoved = new ArrayList<>();
        split(b.groups, groupTable::get, groupUpserts, groupsRemoved);
        List<VirtualMeter> meterUpserts = new ArrayList<>();
        List<Long> metersRemoved = new ArrayList<>();
        split(b.meters, meterTable::get, meterUpserts, metersRemoved);
        Optional<Map<Integer, List<Integer>>> tagsNow = Optional.empty();
        if (tags.version() != tagsWritten) {
            tagsWritten = tags.version();
            tagsNow = Optional.of(tags.allocations());
        }
        return new ChangeBatch(b.seq, upserts, removed, groupUpserts, groupsRemoved, meterUpserts, metersRemoved,
                b.portsChanged ? Optional.of(portMap.current()) : Optional.empty(), tagsNow, ruleTable.nextId(),
                nextCookie.getAsLong(), clock.getAsLong(), System.currentTimeMillis());
    }

    /**
     * Adds to {@code into} the keys of {@code from} it does not have yet (batches come oldest first, so
     * each key keeps its oldest value; a null one, "absent", too: not putIfAbsent).
     */
    private static <V> void keepFirst(Map<Long, V> from, Map<Long, V> into) {
        from.forEach((id, before) -> {
            if (!into.containsKey(id)) {
                into.put(id, before);
            }
        });
    }

    /** Sorts the keys a batch changed into the values they have now and those removed (absent before too: nothing). */
    private static <V> void split(Map<Long, V> changed, Function<Long, Optional<V>> now, List<V> upserts,
                                  List<Long> removed) {
        changed.forEach((id, before) -> {
            Optional<V> v = now.apply(id);
            if (v.isPresent()) {
                upserts.add(v.get());
            } else if (before != null) {
                removed.add(id);
            }
        });
    }

    private void committed(Batch b) {
        if (submitted.peekFirst() != b) {
            LOG.error("state file: record {} was written after its changes were undone", b.seq);
            return;
        }
        submitted.poll();
        commits++;
        if (b.done != null) {
            b.done.complete(null);
        }
        if (submitted.isEmpty()) {
            submitOpen();
        }
    }

    private void failed(Batch b, Throwable t) {
        if (!submitted.contains(b)) {
            return;
        }
        writeFailures++;
        if (degraded != null) {
            return;
        }
        degraded = reason(t);
        degradedAt = seq;
        LOG.error("state file cannot be written ({}): changes are refused until it can be; undoing those not "
                + "on disk", degraded);
        gate.whenOpen(() -> {
            undoUnwritten();
            retryMs = RETRY_MIN_MS;
            timers.schedule(retryMs, this::retry);
        });
    }

    /**
     * Undoes every change not on disk (oldest batch first, so each key gets the value the file
     * has), then tells their requests and who waited for them, in order.
     */
    private void undoUnwritten() {
        List<Batch> lost = new ArrayList<>(submitted);
        submitted.clear();
        if (!open.isEmpty()) {
            lost.add(open);
        }
        open = new Batch();
        if (lost.isEmpty()) {
            return;
        }
        Map<Long, VirtualRule> rules = new LinkedHashMap<>();
        Map<Long, VirtualGroup> groups = new LinkedHashMap<>();
        Map<Long, VirtualMeter> meters = new LinkedHashMap<>();
        PortMap ports = null;
        for (Batch b : lost) {
            keepFirst(b.rules, rules);
            keepFirst(b.groups, groups);
            keepFirst(b.meters, meters);
            if (ports == null && b.portsChanged) {
                ports = b.ports;
            }
        }
        recording = false;
        try {
            host.revert(new Undo(rules, groups, meters, ports));
        } finally {
            recording = true;
        }
        LOG.warn("state file: undid {} rule, {} group, {} meter and {} port map changes that were not on disk",
                rules.size(), groups.size(), meters.size(), ports == null ? 0 : 1);
        IllegalStateException why = new IllegalStateException("the state file cannot be written (" + degraded + ")");
        for (Batch b : lost) {
            undone += b.onLost.size();
            b.onLost.forEach(r -> r.accept(why.getMessage()));
            if (b.done != null) {
                b.done.completeExceptionally(why);
            }
        }
    }

    private void retry() {
        if (degraded == null) {
            return;
        }
        snapshot(false).whenComplete((v, t) -> {
            if (t != null && degraded != null) {
                retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
                timers.schedule(retryMs, this::retry);
            }
        });
    }

    private void periodicSnapshot() {
        if (degraded == null && ruleTable.size() > 0) {
            snapshot(true);
        }
        timers.schedule(SNAPSHOT_INTERVAL_MS, this::periodicSnapshot);
    }

    /**
     * Takes a snapshot of the state now and has it written; one at a time. A {@code counted} one
     * (at start, every {@value #SNAPSHOT_INTERVAL_MS} ms, at shutdown) reads the rules' counters
     * from the switches, which costs a dump of their tables; the others (compaction, recovery)
     * save the counters the last counted one read. Healthy, the open changes are first sent as a
     * record of their own (the snapshot's number is theirs); degraded, they are simply part of the
     * snapshot (nothing waits for them).
     */
    private CompletableFuture<Void> snapshot(boolean counted) {
        if (snapshotRunning != null && !snapshotRunning.isDone()) {
            return snapshotRunning;
        }
        if (degraded == null) {
            submitOpen();
        } else {
            open = new Batch();
            seq++;
        }
        long at = seq;
        tagsWritten = tags.version();
        SavedState state = host.save();
        sink.snapshotStarts(at);
        CompletableFuture<SavedState> full;
        if (counted) {
            full = host.withCounters(state).thenApply(s -> {
                lastCounted = s.counters();
                return s;
            });
        } else {
            Map<Long, RuleCounters> kept = new HashMap<>();
            state.rules().forEach(r -> {
                RuleCounters c = lastCounted.get(r.id());
                if (c != null) {
                    kept.put(r.id(), c);
                }
            });
            full = CompletableFuture.completedFuture(state.withCounters(kept));
        }
        CompletableFuture<Void> done = full.thenCompose(s -> sink.snapshot(at, s));
        snapshotRunning = done;
        done.whenComplete((v, t) -> {
            snapshotRunning = null;
            if (t != null) {
                LOG.warn("state file: snapshot {} not written: {}", at, reason(t));
                return;
            }
            snapshots++;
            if (degraded != null && at > degradedAt) {
                LOG.info("state file written again (snapshot {}, {} rules): changes are accepted again", at,
                        state.rules().size());
                degraded = null;
            }
        });
        return done;
    }

    private static String reason(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && (c instanceof java.util.concurrent.CompletionException
                || c instanceof java.util.concurrent.ExecutionException)) {
            c = c.getCause();
        }
        String m = c.getMessage();
        return c.getClass().getSimpleName() + (m == null ? "" : ": " + m.lines().findFirst().orElse(""));
    }
}
