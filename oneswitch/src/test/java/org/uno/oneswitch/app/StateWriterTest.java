package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.uno.oneswitch.core.ChangeBatch;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.testing.Fixtures;

/**
 * The state file's writer on a real directory: records are on disk when acknowledged, a snapshot
 * keeps the records written while it was made, and after a failed write nothing is appended until
 * a snapshot taken after the failure replaced the file.
 */
class StateWriterTest {
    @TempDir
    Path dir;

    private final ExecutorService loop = Executors.newSingleThreadExecutor();
    private final AtomicInteger compactions = new AtomicInteger();

    @AfterEach
    void stop() {
        loop.shutdownNow();
    }

    private StateWriter writer(Path file) throws ConfigException {
        return StateWriter.open(file, loop, compactions::incrementAndGet);
    }

    private static VirtualRule rule(long id) {
        return Fixtures.rule(id, 10, match(inPort((int) id)), apply(out(3)));
    }

    /** The state holding rules 1..n (ids), taken at record {@code n}. */
    private static SavedState stateWith(int n) {
        List<VirtualRule> rules = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            rules.add(rule(i));
        }
        return new SavedState(rules, Map.of(), n + 1, List.of(), List.of(), List.copyOf(Fixtures.ports(1).mappings()), Map.of(), 1,
                Map.of());
    }

    /** Record {@code seq}, adding rule {@code seq}. */
    private static ChangeBatch adding(long seq) {
        return new ChangeBatch(seq, List.of(rule(seq)), List.of(), List.of(), List.of(), List.of(), List.of(), Optional.empty(),
                Optional.empty(), seq + 1, 1, 0, 1_000);
    }

    private static List<Long> ids(Path file) throws ConfigException {
        return StateFile.load(file, 8).orElseThrow().state().rules().stream().map(VirtualRule::id).toList();
    }

    @Test
    void aRecordIsOnDiskWhenItsFutureCompletes() throws Exception {
        Path file = dir.resolve("sub/state.json");
        StateWriter w = writer(file);
        w.snapshot(0, stateWith(0)).get(10, TimeUnit.SECONDS);
        for (long seq = 1; seq <= 3; seq++) {
            w.append(adding(seq)).get(10, TimeUnit.SECONDS);
            assertEquals(seq, ids(file).size());
        }
        assertEquals(4, StateFile.load(file, 8).orElseThrow().records());
        w.close();
    }

    @Test
    void aSnapshotKeepsTheRecordsWrittenWhileItWasMade() throws Exception {
        Path file = dir.resolve("state.json");
        StateWriter w = writer(file);
        w.snapshot(0, stateWith(0)).get(10, TimeUnit.SECONDS);
        w.append(adding(1)).get(10, TimeUnit.SECONDS);
        w.snapshotStarts(1);
        w.append(adding(2)).get(10, TimeUnit.SECONDS);
        w.append(adding(3)).get(10, TimeUnit.SECONDS);
        w.snapshot(1, stateWith(1)).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(1L, 2L, 3L), ids(file));
        assertEquals(3, StateFile.load(file, 8).orElseThrow().records(), "the snapshot, then records 2 and 3");
        w.append(adding(4)).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(1L, 2L, 3L, 4L), ids(file), "appends go to the new file");
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "no temporary file is left");
        }
        w.close();
    }

    @Test
    void afterAFailedWriteOnlyASnapshotTakenAfterItWritesAgain() throws Exception {
        Path file = dir.resolve("state.json");
        StateWriter w = writer(file);
        w.snapshot(0, stateWith(0)).get(10, TimeUnit.SECONDS);
        w.append(adding(1)).get(10, TimeUnit.SECONDS);
        Files.delete(file);
        assertThrows(ExecutionException.class, () -> w.append(adding(2)).get(10, TimeUnit.SECONDS));
        Files.writeString(file, "someone else's file");
        ExecutionException e = assertThrows(ExecutionException.class, () -> w.append(adding(3)).get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("an earlier write failed"), e.getCause().getMessage());
        assertEquals("someone else's file", Files.readString(file), "nothing appended after a failure");
        assertThrows(ExecutionException.class, () -> w.snapshot(1, stateWith(1)).get(10, TimeUnit.SECONDS),
                "a snapshot taken before the failure would bring back what was undone");
        w.snapshot(4, stateWith(1)).get(10, TimeUnit.SECONDS);
        w.append(adding(5)).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(1L, 5L), ids(file));
        w.close();
    }

    @Test
    void aGrownJournalAsksForASnapshot() throws Exception {
        Path file = dir.resolve("state.json");
        StateWriter w = writer(file);
        w.snapshot(0, stateWith(0)).get(10, TimeUnit.SECONDS);
        List<VirtualRule> many = new ArrayList<>();
        for (int i = 1; i <= 2000; i++) {
            many.add(Fixtures.rule(i, 10, match(inPort(1), Fixtures.ethDst(String.format("02:00:00:00:%02x:%02x",
                    i >> 8, i & 0xff))), apply(out(2))));
        }
        long seq = 0;
        while (compactions.get() == 0 && seq < 200) {
            seq++;
            w.append(new ChangeBatch(seq, many, List.of(), List.of(), List.of(), List.of(), List.of(), Optional.empty(),
                    Optional.empty(),
                    3000, 1, 0, 1_000)).get(10, TimeUnit.SECONDS);
        }
        loop.submit(() -> { }).get();
        assertEquals(1, compactions.get());
        assertTrue(Files.size(file) > StateWriter.COMPACT_MIN_BYTES);
        w.close();
    }
}
