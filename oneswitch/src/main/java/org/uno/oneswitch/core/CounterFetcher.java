package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFFlowStatsReply;
import org.projectfloodlight.openflow.protocol.OFFlowStatsRequest;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.plan.InstalledEntry;

/**
 * Reads the counters of physical entries from their switches by cookie: a few entries are asked
 * for one by one (Open vSwitch indexes cookies), many with one dump per switch. Entries on a
 * switch that is not connected, or that does not answer, count zero.
 *
 * <p>At most one dump per switch is in flight: the requests that come while one is share the next
 * one, which starts when it ends (so every answer still reflects counters read after its request
 * came). However many clients ask for statistics at once, a switch dumps its table at most twice
 * per round trip. Event loop only.
 */
final class CounterFetcher {
    /** Up to this many entries per switch are requested one by one. */
    private static final int PER_ENTRY_LIMIT = 8;

    private final PhysicalNetwork net;
    /** Per switch: the dump in flight, and the one the requests that came meanwhile wait for. */
    private final Map<String, CompletableFuture<List<OFStatsReply>>> dumping = new HashMap<>();
    private final Map<String, CompletableFuture<List<OFStatsReply>>> nextDump = new HashMap<>();

    CounterFetcher(PhysicalNetwork net) {
        this.net = net;
    }

    /** The counters of {@code entries}, by cookie. */
    CompletableFuture<Map<U64, Counts>> fetch(Collection<InstalledEntry> entries) {
        Map<String, List<InstalledEntry>> bySwitch = new LinkedHashMap<>();
        for (InstalledEntry e : entries) {
            if (net.connected(e.key().switchId())) {
                bySwitch.computeIfAbsent(e.key().switchId(), s -> new ArrayList<>()).add(e);
            }
        }
        List<CompletableFuture<List<OFStatsReply>>> pending = new ArrayList<>();
        for (Map.Entry<String, List<InstalledEntry>> e : bySwitch.entrySet()) {
            if (e.getValue().size() <= PER_ENTRY_LIMIT) {
                for (InstalledEntry ie : e.getValue()) {
                    pending.add(quiet(net.request(e.getKey(), request(TableId.of(ie.key().key().table()),
                            ie.cookie(), U64.NO_MASK))));
                }
            } else {
                pending.add(dump(e.getKey()));
            }
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenApply(v -> {
            Map<U64, Counts> out = new HashMap<>();
            for (CompletableFuture<List<OFStatsReply>> f : pending) {
                for (OFStatsReply r : f.join()) {
                    for (OFFlowStatsEntry fe : ((OFFlowStatsReply) r).getEntries()) {
                        out.merge(fe.getCookie(), new Counts(fe.getPacketCount().getValue(),
                                fe.getByteCount().getValue()), Counts::plus);
                    }
                }
            }
            return out;
        });
    }

    /** A dump of switch {@code sw}'s tables that starts now, or after the one in flight. */
    private CompletableFuture<List<OFStatsReply>> dump(String sw) {
        if (dumping.containsKey(sw)) {
            return nextDump.computeIfAbsent(sw, s -> new CompletableFuture<>());
        }
        CompletableFuture<List<OFStatsReply>> f = quiet(net.request(sw, request(TableId.ALL, U64.ZERO, U64.ZERO)));
        dumping.put(sw, f);
        f.whenComplete((replies, t) -> {
            dumping.remove(sw);
            CompletableFuture<List<OFStatsReply>> waiting = nextDump.remove(sw);
            if (waiting != null) {
                dump(sw).thenAccept(waiting::complete);
            }
        });
        return f;
    }

    private OFFlowStatsRequest request(TableId table, U64 cookie, U64 mask) {
        OFFactory f = net.factory();
        return f.buildFlowStatsRequest().setTableId(table).setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY)
                .setCookie(cookie).setCookieMask(mask).setMatch(f.buildMatch().build()).build();
    }

    /** A disconnected or failing switch contributes no counters rather than failing the request. */
    private static CompletableFuture<List<OFStatsReply>> quiet(CompletableFuture<List<OFStatsReply>> f) {
        return f.exceptionally(t -> List.of());
    }
}
