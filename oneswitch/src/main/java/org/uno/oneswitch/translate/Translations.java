package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongIterator;

import org.uno.oneswitch.model.Interner;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.store.PhysicalFlowTable;

/**
 * Owner -> translation. Nearly every owner is a virtual rule, whose translation is kept by the rule's
 * id unboxed, so that no key object (and no map entry object) is kept per rule for the collector to
 * copy. A translation that starts with the rule's counting entries (the usual one: the entry of a rule
 * local to one switch, with the delivery and tag group its crossing shares with every rule crossing to
 * the same port, or the entries on both switches of a rule without an ingress port) is kept as the
 * slots of the first one or two in the plan's columns ({@link PhysicalFlowTable}) and the rest of it as
 * an instance shared by every rule with an equal rest, and made from them when read: a rule that
 * translates so keeps no object of its own. Another translation of one entry is kept as that entry
 * alone; the few other owners are in an ordinary map.
 *
 * <p>A slot kept here stays the entry's while the rule holds the entry (an entry goes only when nobody
 * holds it): a replace drops a rule's translation before the entries it names can go.
 */
final class Translations {
    /** How many distinct rests are shared (about one per port rules cross to); more are kept per rule. */
    private static final int SHARED_RESTS = 4096;

    private final PhysicalFlowTable flows;
    /**
     * Rule id -> the slots of the counting entries its translation starts with: the first in the low 32 bits,
     * the second, plus one, in the high ones (0: there is one).
     */
    private final Long2LongOpenHashMap counting = new Long2LongOpenHashMap();
    /** Rule id -> the rest of its translation, when there is more than the counting entry. */
    private final Long2ObjectOpenHashMap<Translation> rests = new Long2ObjectOpenHashMap<>();
    private final Interner<Translation> sharedRests = new Interner<>(SHARED_RESTS);
    /** Rule id -> its {@link Translation}, or its one {@link PhysicalRule}, when not in {@link #counting}. */
    private final Long2ObjectOpenHashMap<Object> rules = new Long2ObjectOpenHashMap<>();
    private final Map<Owner, Translation> others = new HashMap<>();

    Translations(PhysicalFlowTable flows) {
        this.flows = flows;
        counting.defaultReturnValue(-1);
    }

    /** {@code owner}'s translation, or null. */
    Translation get(Owner owner) {
        if (owner.kind() != Owner.Kind.RULE) {
            return others.get(owner);
        }
        long slots = counting.get(owner.id());
        return slots >= 0 ? withCountingEntries(slots, rests.get(owner.id())) : translation(rules.get(owner.id()));
    }

    /** Keeps {@code t} as {@code owner}'s; every entry it names is planned. */
    void put(Owner owner, Translation t) {
        if (owner.kind() != Owner.Kind.RULE) {
            others.put(owner, t);
            return;
        }
        drop(owner);
        List<PhysicalRule> all = t.flows();
        int first = all.isEmpty() ? -1 : countingSlot(all.get(0));
        if (first >= 0) {
            int second = all.size() > 1 ? countingSlot(all.get(1)) : -1;
            counting.put(owner.id(), (long) (second + 1) << 32 | first);
            int kept = second >= 0 ? 2 : 1;
            if (all.size() > kept || !t.groups().isEmpty()) {
                rests.put(owner.id(), sharedRests.intern(new Translation(all.subList(kept, all.size()), t.groups())));
            }
        } else {
            rules.put(owner.id(), all.size() == 1 && t.groups().isEmpty() ? all.get(0) : t);
        }
    }

    /** Removes {@code owner}'s translation and returns it, or null. */
    Translation remove(Owner owner) {
        Translation t = get(owner);
        drop(owner);
        return t;
    }

    /** Forgets {@code owner}'s translation without reading it (the entries it names may be gone). */
    void drop(Owner owner) {
        if (owner.kind() == Owner.Kind.RULE) {
            counting.remove(owner.id());
            rests.remove(owner.id());
            rules.remove(owner.id());
        } else {
            others.remove(owner);
        }
    }

    /** The slot of {@code r}, a counting entry the plan holds as it is, else -1. */
    private int countingSlot(PhysicalRule r) {
        int slot = flows.slotOf(r.physicalKey());
        return r.role() == PhysicalRule.Role.COUNTING && r.tag() == 0 && slot >= 0
                && flows.contentAt(slot).instructions().equals(r.instructions()) ? slot : -1;
    }

    /** The translation of the counting entries in {@code slots} followed by {@code rest} (null: nothing more). */
    private Translation withCountingEntries(long slots, Translation rest) {
        List<PhysicalRule> all = new ArrayList<>(2 + (rest == null ? 0 : rest.flows().size()));
        all.add(countingEntry((int) slots));
        if (slots >>> 32 != 0) {
            all.add(countingEntry((int) (slots >>> 32) - 1));
        }
        if (rest == null) {
            return new Translation(all, List.of());
        }
        all.addAll(rest.flows());
        return new Translation(all, rest.groups());
    }

    private PhysicalRule countingEntry(int slot) {
        return new PhysicalRule(flows.keyAt(slot), flows.contentAt(slot).instructions(), PhysicalRule.Role.COUNTING, 0);
    }

    private static Translation translation(Object kept) {
        return kept instanceof PhysicalRule one ? new Translation(List.of(one), List.of()) : (Translation) kept;
    }

    /** The owners, as a copy. */
    List<Owner> owners() {
        List<Owner> out = new ArrayList<>(counting.size() + rules.size() + others.size());
        for (LongIterator ids = counting.keySet().iterator(); ids.hasNext(); ) {
            out.add(Owner.rule(ids.nextLong()));
        }
        for (LongIterator ids = rules.keySet().iterator(); ids.hasNext(); ) {
            out.add(Owner.rule(ids.nextLong()));
        }
        out.addAll(others.keySet());
        return out;
    }
}
