package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.stats.EntryCounters;
import org.uno.oneswitch.translate.PhysicalPlan;

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
    private final Map<String, CompletableFuture<List<EntryCounters>>> dumping = new HashMap<>();
    private final Map<String, CompletableFuture<List<EntryCounters>>> nextDump = new HashMap<>();

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
        List<CompletableFuture<List<EntryCounters>>> pending = new ArrayList<>();
        for (Map.Entry<String, List<InstalledEntry>> e : bySwitch.entrySet()) {
            if (e.getValue().size() <= PER_ENTRY_LIMIT) {
                for (InstalledEntry ie : e.getValue()) {
                    pending.add(quiet(net.entryCounters(e.getKey(), ie.key().key().table(), ie.cookie(),
                            U64.NO_MASK)));
                }
            } else {
                pending.add(dump(e.getKey()));
            }
        }
        return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).thenApply(v -> {
            Map<U64, Counts> out = new HashMap<>();
            for (CompletableFuture<List<EntryCounters>> f : pending) {
                for (EntryCounters c : f.join()) {
                    out.merge(c.cookie(), c.counts(), Counts::plus);
                }
            }
            return out;
        });
    }

    /** A dump of switch {@code sw}'s tables that starts now, or after the one in flight. */
    private CompletableFuture<List<EntryCounters>> dump(String sw) {
        if (dumping.containsKey(sw)) {
            return nextDump.computeIfAbsent(sw, s -> new CompletableFuture<>());
        }
        // Sealed entries count nothing for a rule, and openflowj cannot read them.
        CompletableFuture<List<EntryCounters>> f = quiet(net.entryCounters(sw, -1, U64.ZERO,
                U64.of(PhysicalPlan.SEALED_COOKIE_BIT)));
        dumping.put(sw, f);
        f.whenComplete((replies, t) -> {
            dumping.remove(sw);
            CompletableFuture<List<EntryCounters>> waiting = nextDump.remove(sw);
            if (waiting != null) {
                dump(sw).thenAccept(waiting::complete);
            }
        });
        return f;
    }

    /** A disconnected or failing switch contributes no counters rather than failing the request. */
    private static CompletableFuture<List<EntryCounters>> quiet(CompletableFuture<List<EntryCounters>> f) {
        return f.exceptionally(t -> List.of());
    }
}
