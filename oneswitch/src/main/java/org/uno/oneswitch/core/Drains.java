package org.uno.oneswitch.core;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.projectfloodlight.openflow.types.OFPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.translate.Infrastructure;

/**
 * Drain markers: proof that the packets other switches sent toward one switch before some moment
 * have all arrived there (a remap's drain: nothing is still on its way to the old port), or that
 * what one switch sent toward the others has (a migration's release: the old NF's last output is
 * ahead of the new NF's first). A marker is a packet-out on the sending switch, through the same
 * PCIe links as the data (first in, first out), that the receiving switch's dispatch table hands to
 * OneSwitch; when every marker is back, nothing sent earlier is still on its way.
 */
final class Drains {
    private static final Logger LOG = LoggerFactory.getLogger(Drains.class);
    private static final byte[] MAGIC = "UNO-DRAIN".getBytes(StandardCharsets.US_ASCII);
    private static final int ETH_HEADER = 14;
    private static final int TAG = 4;

    private final Topology topology;
    private final PhysicalNetwork net;
    private final Timers timers;
    private final Map<Long, CompletableFuture<Void>> pending = new HashMap<>();
    private long nextNonce = 1;

    Drains(Topology topology, PhysicalNetwork net, Timers timers) {
        this.topology = topology;
        this.net = net;
        this.timers = timers;
    }

    /**
     * Sends a marker from every other connected switch toward {@code target}; completes with true
     * when all came back, with false after {@code timeoutMillis} (or at once when {@code target}
     * is not connected).
     */
    CompletableFuture<Boolean> toward(String target, long timeoutMillis) {
        return markers(target, other -> marker(other, target, timeoutMillis));
    }

    /**
     * Sends a marker from {@code source} toward every other connected switch: completes with true when
     * all came back, so that what {@code source} had sent on its links before has arrived and been
     * forwarded; with false after {@code timeoutMillis} (or at once when {@code source} is not connected).
     */
    CompletableFuture<Boolean> from(String source, long timeoutMillis) {
        return markers(source, other -> marker(source, other, timeoutMillis));
    }

    /** The markers {@code send} sends between {@code end} and each other connected switch, all back. */
    private CompletableFuture<Boolean> markers(String end, Function<String, CompletableFuture<Void>> send) {
        if (!net.connected(end)) {
            return CompletableFuture.completedFuture(false);
        }
        List<CompletableFuture<Void>> markers = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            if (!s.id().equals(end) && net.connected(s.id())) {
                markers.add(send.apply(s.id()));
            }
        }
        return CompletableFuture.allOf(markers.toArray(CompletableFuture[]::new)).handle((v, t) -> t == null);
    }

    private CompletableFuture<Void> marker(String from, String to, long timeoutMillis) {
        long nonce = nextNonce++;
        CompletableFuture<Void> f = new CompletableFuture<>();
        pending.put(nonce, f);
        net.packetOut(from, OFPort.CONTROLLER, Infrastructure.markerActions(topology, from, to), packet(nonce),
                (sw, e) -> LOG.warn("switch {} refused a drain marker: {}", sw, e.describe()));
        timers.schedule(timeoutMillis, () -> {
            if (pending.remove(nonce) != null) {
                f.completeExceptionally(new IllegalStateException("drain marker from " + from + " lost"));
            }
        });
        return f;
    }

    /** True when {@code d}, a packet-in's frame (from a PCIe link port), is a marker; completes its wait. */
    boolean onPacketIn(byte[] d) {
        int at = ETH_HEADER + TAG;
        if (d.length < at + MAGIC.length + Long.BYTES) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (d[at + i] != MAGIC[i]) {
                return false;
            }
        }
        long nonce = ByteBuffer.wrap(d, at + MAGIC.length, Long.BYTES).getLong();
        CompletableFuture<Void> f = pending.remove(nonce);
        if (f != null) {
            f.complete(null);
        }
        return true;
    }

    /** An Ethernet frame (local experimental ethertype 0x88b5) carrying the magic and the nonce. */
    private static byte[] packet(long nonce) {
        ByteBuffer b = ByteBuffer.allocate(64);
        byte[] mac = {0x02, 0x55, 0x4e, 0x4f, 0x00, 0x00};
        b.put(mac).put(mac).putShort((short) 0x88b5).put(MAGIC).putLong(nonce);
        return b.array();
    }
}
