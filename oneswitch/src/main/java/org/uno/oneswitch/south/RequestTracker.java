package org.uno.oneswitch.south;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.projectfloodlight.openflow.protocol.OFBarrierReply;
import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReplyFlags;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.DeferredFlush;
import org.uno.oneswitch.core.PhysicalNetwork;
import org.uno.oneswitch.error.PhysicalErrors;

/**
 * Requests and replies on one OpenFlow connection to a physical switch: fresh xids, multipart
 * replies gathered per request, barriers, and errors routed to whoever sent the failing message.
 *
 * <p>Invariants: xids increase; a barrier is sent only when something was sent since the last one
 * ({@code dirty}); error listeners are dropped once a later barrier reply shows their message was
 * processed; every pending reply fails (barriers complete) when the connection closes.
 */
final class RequestTracker {
    private static final Logger LOG = LoggerFactory.getLogger(RequestTracker.class);
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    /**
     * Error listeners kept for messages not yet covered by a barrier reply; beyond this many (a
     * controller streaming without barriers) the oldest are dropped and their errors only logged.
     */
    private static final int MAX_ERROR_LISTENERS = 1 << 16;
    /**
     * Messages with an error listener after which a barrier goes out unasked. A listener keeps its whole
     * request (the controller's message, the change to undo) until a barrier reply covers it; in a stream
     * without barriers tens of thousands of them survived young collections, which copied each of them
     * several times, and that copying was most of a bulk install's collector pauses.
     */
    static final int LISTENERS_PER_BARRIER = 256;

    private final DeferredFlush out;
    private final Supplier<String> name;
    private long nextXid = 1;
    private boolean dirty;
    private int listenersSinceBarrier;
    private CompletableFuture<Void> lastBarrier = CompletableFuture.completedFuture(null);
    private final Map<Long, Pending> pending = new HashMap<>();
    private final LinkedHashMap<Long, PhysicalNetwork.ErrorListener> errorListeners = new LinkedHashMap<>();

    /** A request waiting for its reply (multipart parts accumulate); barriers have {@code barrier} set. */
    private static final class Pending {
        final CompletableFuture<List<OFStatsReply>> future = new CompletableFuture<>();
        final List<OFStatsReply> parts = new ArrayList<>();
        final CompletableFuture<Void> barrier;

        Pending(CompletableFuture<Void> barrier) {
            this.barrier = barrier;
        }
    }

    RequestTracker(DeferredFlush out, Supplier<String> name) {
        this.out = out;
        this.name = name;
    }

    /** Writes {@code msg} with a fresh xid (counts as traffic a barrier must cover); returns the xid. */
    long write(OFMessage.Builder msg) {
        long xid = nextXid++;
        out.write(msg.setXid(xid).build());
        dirty = true;
        return xid;
    }

    /** Sends {@code msg}; an error the switch returns for it goes to {@code onError}. */
    void send(OFMessage.Builder msg, PhysicalNetwork.ErrorListener onError) {
        long xid = write(msg);
        if (onError != null) {
            errorListeners.put(xid, onError);
            if (errorListeners.size() > MAX_ERROR_LISTENERS) {
                Iterator<Long> it = errorListeners.keySet().iterator();
                it.next();
                it.remove();
            }
            if (++listenersSinceBarrier >= LISTENERS_PER_BARRIER) {
                barrier();
            }
        }
    }

    CompletableFuture<List<OFStatsReply>> request(OFStatsRequest<?> req) {
        Pending p = new Pending(null);
        pending.put(write(req.createBuilder()), p);
        return p.future;
    }

    /** Completes when the switch has processed everything sent on this connection so far. */
    CompletableFuture<Void> barrier() {
        if (dirty) {
            dirty = false;
            listenersSinceBarrier = 0;
            CompletableFuture<Void> b = new CompletableFuture<>();
            long xid = nextXid++;
            out.write(OF13.buildBarrierRequest().setXid(xid).build());
            pending.put(xid, new Pending(b));
            lastBarrier = b;
        }
        return lastBarrier;
    }

    /** Handles a reply or error; false when {@code m} is not one (the connection handles it). */
    boolean onMessage(OFMessage m) {
        switch (m.getType()) {
            case STATS_REPLY -> onStatsReply((OFStatsReply) m);
            case BARRIER_REPLY -> onBarrierReply((OFBarrierReply) m);
            case ERROR -> onError((OFErrorMsg) m);
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * A message with {@code xid} arrived that could not be decoded: a request waiting for it fails
     * (a barrier completes, as a reply would); anything else is only logged by the caller.
     */
    void undecodable(long xid, String reason) {
        Pending p = pending.remove(xid);
        if (p == null) {
            return;
        }
        if (p.barrier != null) {
            p.barrier.complete(null);
        } else {
            p.future.completeExceptionally(new IllegalStateException(name.get() + " sent an undecodable reply: "
                    + reason));
        }
    }

    /** Fails every pending request (the connection closed). */
    void failAll() {
        for (Pending p : pending.values()) {
            if (p.barrier != null) {
                p.barrier.complete(null);
            } else {
                p.future.completeExceptionally(new IllegalStateException("connection to " + name.get() + " closed"));
            }
        }
        pending.clear();
    }

    private void onStatsReply(OFStatsReply r) {
        Pending p = pending.get(r.getXid());
        if (p == null) {
            return;
        }
        p.parts.add(r);
        if (!r.getFlags().contains(OFStatsReplyFlags.REPLY_MORE)) {
            pending.remove(r.getXid());
            p.future.complete(p.parts);
        }
    }

    private void onBarrierReply(OFBarrierReply r) {
        Pending p = pending.remove(r.getXid());
        Iterator<Long> it = errorListeners.keySet().iterator();
        while (it.hasNext() && it.next() < r.getXid()) {
            it.remove();
        }
        if (p != null && p.barrier != null) {
            p.barrier.complete(null);
        }
    }

    private void onError(OFErrorMsg e) {
        Pending p = pending.remove(e.getXid());
        if (p != null) {
            if (p.barrier != null) {
                p.barrier.complete(null);
            } else {
                p.future.completeExceptionally(new IllegalStateException(name.get() + " refused request: " + e));
            }
            return;
        }
        PhysicalNetwork.ErrorListener l = errorListeners.remove(e.getXid());
        if (l != null) {
            l.onError(name.get(), PhysicalErrors.toVirtual(name.get(), e));
        } else {
            LOG.warn("switch {} sent error {}", name.get(), e);
        }
    }
}
