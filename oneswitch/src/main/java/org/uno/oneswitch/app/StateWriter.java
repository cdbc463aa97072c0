package org.uno.oneswitch.app;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.core.ChangeBatch;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.core.StateLog;

/**
 * Writes the state file off the event loop, on two threads of its own. The journal thread appends
 * each change record and syncs it (fdatasync) before its future completes; the snapshot thread
 * encodes a snapshot into a new file in the same directory and syncs it, then the journal thread
 * appends to it the records written since the snapshot was taken, syncs it, renames it over the
 * state file and syncs the directory, and appends to the new file from then on. The file is opened
 * for each write, not held open.
 *
 * <p>Invariants: a record's future completes only once it is on disk; after a failed or short
 * write the file is cut back to its last whole record, and nothing more is appended until a
 * snapshot taken after the failure replaced the file (so a record the event loop undid never
 * follows on disk). Futures complete on {@code loop}.
 */
final class StateWriter implements StateLog.Sink {
    private static final Logger LOG = LoggerFactory.getLogger(StateWriter.class);
    /** The journal is compacted into a snapshot once larger than this and than four times the last snapshot. */
    static final long COMPACT_MIN_BYTES = 16L << 20;

    private final Path file;
    private final Path dir;
    private final Executor loop;
    private final Runnable compactionWanted;
    private final ExecutorService journal = thread("oneswitch-journal");
    private final ExecutorService snapshots = thread("oneswitch-snapshot");
    // journal thread only:
    private long size;
    private long compactAt = COMPACT_MIN_BYTES;
    private boolean compactionAsked;
    private boolean broken;
    private long failedSeq = -1;
    private long retainAfter = -1;
    private final List<byte[]> retained = new ArrayList<>();

    private StateWriter(Path file, Executor loop, Runnable compactionWanted) {
        this.file = file;
        this.dir = file.toAbsolutePath().getParent();
        this.loop = loop;
        this.compactionWanted = compactionWanted;
    }

    /**
     * A writer of {@code file} (its directory is created if missing); {@code compactionWanted}
     * runs on {@code loop} when the journal has grown enough for a snapshot.
     */
    static StateWriter open(Path file, Executor loop, Runnable compactionWanted) throws ConfigException {
        StateWriter w = new StateWriter(file, loop, compactionWanted);
        try {
            Files.createDirectories(w.dir);
        } catch (IOException e) {
            throw new ConfigException("cannot create the state file's directory " + w.dir + ": " + e);
        }
        return w;
    }

    @Override
    public CompletableFuture<Void> append(ChangeBatch b) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        journal.execute(() -> {
            try {
                appendNow(b);
                settle(f, null);
            } catch (IOException | RuntimeException e) {
                settle(f, e);
            }
        });
        return f;
    }

    private void appendNow(ChangeBatch b) throws IOException {
        if (broken) {
            failedSeq = Math.max(failedSeq, b.seq());
            throw new IOException("not written: an earlier write failed");
        }
        byte[] record;
        try {
            record = StateRecords.frame(StateFile.changes(b));
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                writeFully(ch, record);
                ch.force(false);
            }
        } catch (IOException | RuntimeException e) {
            broken = true;
            failedSeq = Math.max(failedSeq, b.seq());
            cutBack();
            throw e;
        }
        size += record.length;
        if (retainAfter >= 0 && b.seq() > retainAfter) {
            retained.add(record);
        }
        if (!compactionAsked && size > compactAt) {
            compactionAsked = true;
            onLoop(compactionWanted);
        }
    }

    /** Cuts the file back to its last whole record (a short write may have left part of one). */
    private void cutBack() {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            if (ch.size() > size) {
                ch.truncate(size);
                ch.force(true);
            }
        } catch (IOException e) {
            LOG.debug("state file {} not cut back to {} bytes: {}", file, size, e.toString());
        }
    }

    @Override
    public void snapshotStarts(long seq) {
        journal.execute(() -> {
            retainAfter = seq;
            retained.clear();
        });
    }

    @Override
    public CompletableFuture<Void> snapshot(long seq, SavedState state) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        snapshots.execute(() -> {
            Path tmp = null;
            try {
                byte[] record = StateRecords.frame(StateFile.snapshot(seq, state));
                tmp = Files.createTempFile(dir, file.getFileName().toString() + ".", ".tmp");
                try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                    writeFully(ch, record);
                    ch.force(true);
                }
                Path written = tmp;
                journal.execute(() -> install(seq, written, record.length, f));
            } catch (IOException | RuntimeException e) {
                deleteQuietly(tmp);
                journal.execute(() -> {
                    stopRetaining(seq);
                    compactAt = size + COMPACT_MIN_BYTES;
                    compactionAsked = false;
                    settle(f, e);
                });
            }
        });
        return f;
    }

    /** Completes the snapshot in {@code tmp} with the records since {@code seq} and puts it in place (journal thread). */
    private void install(long seq, Path tmp, long snapshotBytes, CompletableFuture<Void> f) {
        boolean renamed = false;
        try {
            if (broken && seq <= failedSeq) {
                throw new IOException("snapshot " + seq + " was taken before record " + failedSeq + " failed");
            }
            long total = snapshotBytes;
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
                for (byte[] r : retained) {
                    writeFully(ch, r);
                    total += r.length;
                }
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            renamed = true;
            size = total;
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            }
            broken = false;
            compactAt = Math.max(COMPACT_MIN_BYTES, 4 * snapshotBytes);
            compactionAsked = false;
            settle(f, null);
        } catch (IOException | RuntimeException e) {
            if (renamed) {
                broken = true;
                failedSeq = Math.max(failedSeq, seq);
            } else {
                deleteQuietly(tmp);
            }
            compactAt = size + COMPACT_MIN_BYTES;
            compactionAsked = false;
            settle(f, e);
        } finally {
            stopRetaining(seq);
        }
    }

    private void stopRetaining(long seq) {
        if (retainAfter == seq) {
            retainAfter = -1;
            retained.clear();
        }
    }

    /** Stops the threads once what was queued is done. */
    void close() {
        for (ExecutorService e : List.of(snapshots, journal)) {
            e.shutdown();
            try {
                if (!e.awaitTermination(10, TimeUnit.SECONDS)) {
                    LOG.warn("state file writer still busy at exit");
                }
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void settle(CompletableFuture<Void> f, Throwable t) {
        onLoop(() -> {
            if (t == null) {
                f.complete(null);
            } else {
                f.completeExceptionally(t);
            }
        });
    }

    /** Runs {@code r} on the event loop (here when it has stopped, at exit). */
    private void onLoop(Runnable r) {
        try {
            loop.execute(r);
        } catch (RejectedExecutionException e) {
            r.run();
        }
    }

    /** Writes all of {@code bytes}; a write that makes no progress is a short write, an error. */
    private static void writeFully(FileChannel ch, byte[] bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
            if (ch.write(buf) <= 0) {
                throw new IOException("short write: " + buf.remaining() + " of " + bytes.length + " bytes not written");
            }
        }
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                LOG.debug("cannot delete {}: {}", p, e.toString());
            }
        }
    }

    private static ExecutorService thread(String name) {
        return Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }
}
