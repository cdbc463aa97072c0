package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.Topology;

/**
 * The physical flow entries all virtual rules need, with who needs each, and the changes that
 * follow from replacing some virtual rules' translations.
 *
 * <p>Invariants: an entry (switch, table, priority, match) exists once, with one instruction list
 * that every virtual rule needing it agrees on, and as long as at least one does; link arrivals
 * are unambiguous ({@link LinkIndex}); each entry keeps its cookie for its whole life, and cookies
 * are never reused. {@link #replace} is all-or-nothing. No I/O: the caller sends the changes.
 */
public final class PhysicalPlan {
    /** High 16 bits of every physical cookie OneSwitch allocates ("UN"), so strays are easy to see. */
    public static final long COOKIE_TAG = 0x554eL << 48;

    private record Contribution(long virtualId, PhysicalRule.Role role, Origin origin) {
    }

    private record Entry(List<Instruction> instructions, U64 cookie, List<Contribution> contributions) {
    }

    private final LinkIndex links;
    private final Map<PhysicalKey, Entry> entries = new HashMap<>();
    private final Map<U64, PhysicalKey> byCookie = new HashMap<>();
    private final Map<Long, List<PhysicalRule>> byVirtual = new HashMap<>();
    private long nextCookie = 1;

    public PhysicalPlan(Topology topology) {
        this.links = new LinkIndex(topology);
    }

    /**
     * Replaces the translations of the given virtual rules (an empty list removes a rule) and
     * returns the physical changes, adds and modifies before deletes. Throws, changing nothing,
     * when the result would be ambiguous.
     */
    public List<PhysicalChange> replace(Map<Long, List<PhysicalRule>> translations)
            throws TranslationConflictException {
        Map<PhysicalKey, Entry> before = new LinkedHashMap<>();
        Map<Long, List<PhysicalRule>> previous = new HashMap<>();
        for (Long id : translations.keySet()) {
            List<PhysicalRule> old = byVirtual.remove(id);
            previous.put(id, old);
            for (PhysicalRule r : old == null ? List.<PhysicalRule>of() : old) {
                remember(before, r.physicalKey());
                removeContribution(r.physicalKey(), new Contribution(id, r.role(), r.origin()));
            }
        }
        try {
            for (Map.Entry<Long, List<PhysicalRule>> e : translations.entrySet()) {
                for (PhysicalRule r : e.getValue()) {
                    remember(before, r.physicalKey());
                    addContribution(r, e.getKey(), before.get(r.physicalKey()));
                }
                if (!e.getValue().isEmpty()) {
                    byVirtual.put(e.getKey(), List.copyOf(e.getValue()));
                }
            }
        } catch (TranslationConflictException ex) {
            rollback(before, previous);
            throw ex;
        }
        return changes(before);
    }

    /** The entries planned for {@code switchId}. */
    public List<InstalledEntry> entries(String switchId) {
        List<InstalledEntry> out = new ArrayList<>();
        for (Map.Entry<PhysicalKey, Entry> e : entries.entrySet()) {
            if (e.getKey().switchId().equals(switchId)) {
                out.add(new InstalledEntry(e.getKey(), e.getValue().instructions(), e.getValue().cookie()));
            }
        }
        return out;
    }

    /** The physical rules of virtual rule {@code virtualId} (empty when it has none). */
    public List<PhysicalRule> rulesOf(long virtualId) {
        return byVirtual.getOrDefault(virtualId, List.of());
    }

    /** The planned entries whose counters are virtual rule {@code virtualId}'s counters. */
    public List<InstalledEntry> countingEntries(long virtualId) {
        List<InstalledEntry> out = new ArrayList<>();
        for (PhysicalRule r : rulesOf(virtualId)) {
            if (r.role() == PhysicalRule.Role.COUNTING) {
                Entry e = entries.get(r.physicalKey());
                InstalledEntry ie = new InstalledEntry(r.physicalKey(), e.instructions(), e.cookie());
                if (!out.contains(ie)) {
                    out.add(ie);
                }
            }
        }
        return out;
    }

    /** The virtual rule an entry with {@code cookie} counts for (the first one if shared). */
    public Optional<Long> countingOwner(U64 cookie) {
        PhysicalKey key = byCookie.get(cookie);
        if (key == null) {
            return Optional.empty();
        }
        return entries.get(key).contributions().stream().filter(c -> c.role() == PhysicalRule.Role.COUNTING)
                .map(Contribution::virtualId).findFirst();
    }

    /** How many physical entries the plan holds on all switches. */
    public int size() {
        return entries.size();
    }

    private void remember(Map<PhysicalKey, Entry> before, PhysicalKey key) {
        if (!before.containsKey(key)) {
            before.put(key, entries.get(key));
        }
    }

    /** Adds one rule's need for an entry; {@code old} is the entry before this replace (keeps its cookie). */
    private void addContribution(PhysicalRule r, long virtualId, Entry old) throws TranslationConflictException {
        PhysicalKey key = r.physicalKey();
        Entry e = entries.get(key);
        if (e != null && !e.instructions().equals(r.instructions())) {
            throw new TranslationConflictException("virtual rules #" + e.contributions().get(0).virtualId()
                    + " and #" + virtualId + " both need physical entry " + key + " with different actions");
        }
        Contribution c = new Contribution(virtualId, r.role(), r.origin());
        if (e == null || e.contributions().stream().noneMatch(x -> x.origin().equals(r.origin()))) {
            links.check(key, r.instructions(), r.origin(), k -> entries.get(k).instructions());
        }
        List<Contribution> cs = new ArrayList<>(e == null ? List.of() : e.contributions());
        cs.add(c);
        U64 cookie = e != null ? e.cookie() : old != null ? old.cookie() : U64.of(COOKIE_TAG | nextCookie++);
        put(key, new Entry(r.instructions(), cookie, cs));
    }

    private void removeContribution(PhysicalKey key, Contribution c) {
        Entry e = entries.get(key);
        List<Contribution> cs = new ArrayList<>(e.contributions());
        cs.remove(c);
        put(key, cs.isEmpty() ? null : new Entry(e.instructions(), e.cookie(), cs));
    }

    /** Sets (or with null removes) an entry and keeps the cookie and link indexes in step. */
    private void put(PhysicalKey key, Entry next) {
        Entry prev = next == null ? entries.remove(key) : entries.put(key, next);
        if (prev != null) {
            prev.contributions().forEach(c -> links.remove(key, c.origin()));
            byCookie.remove(prev.cookie());
        }
        if (next != null) {
            next.contributions().forEach(c -> links.add(key, c.origin()));
            byCookie.put(next.cookie(), key);
        }
    }

    private void rollback(Map<PhysicalKey, Entry> before, Map<Long, List<PhysicalRule>> previous) {
        before.forEach(this::put);
        for (Map.Entry<Long, List<PhysicalRule>> e : previous.entrySet()) {
            if (e.getValue() == null) {
                byVirtual.remove(e.getKey());
            } else {
                byVirtual.put(e.getKey(), e.getValue());
            }
        }
    }

    private List<PhysicalChange> changes(Map<PhysicalKey, Entry> before) {
        List<PhysicalChange> upserts = new ArrayList<>();
        List<PhysicalChange> deletes = new ArrayList<>();
        for (Map.Entry<PhysicalKey, Entry> e : before.entrySet()) {
            Entry old = e.getValue();
            Entry now = entries.get(e.getKey());
            if (now == null && old != null) {
                deletes.add(new PhysicalChange(PhysicalChange.Kind.DELETE, e.getKey(), List.of(), old.cookie()));
            } else if (now != null && old == null) {
                upserts.add(new PhysicalChange(PhysicalChange.Kind.ADD, e.getKey(), now.instructions(), now.cookie()));
            } else if (now != null && !now.instructions().equals(old.instructions())) {
                upserts.add(new PhysicalChange(PhysicalChange.Kind.MODIFY, e.getKey(), now.instructions(), now.cookie()));
            }
        }
        upserts.addAll(deletes);
        return upserts;
    }
}
