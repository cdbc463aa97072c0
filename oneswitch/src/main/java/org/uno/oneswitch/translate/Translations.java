package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongIterator;

import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.store.PhysicalFlowTable;

/**
 * Owner -> translation. Nearly every owner is a virtual rule, whose translation is kept by the rule's
 * id unboxed, so that no key object (and no map entry object) is kept per rule for the collector to
 * copy. The usual translation, one counting entry and no group, is kept as the slot of that entry in
 * the plan's columns ({@link PhysicalFlowTable}), and made from them when read: a rule that translates
 * so keeps no object at all. Another translation of one entry is kept as that entry alone; the few
 * other owners are in an ordinary map.
 *
 * <p>A slot kept here stays the entry's while the rule holds the entry (an entry goes only when nobody
 * holds it): a replace drops a rule's translation before the entries it names can go.
 */
final class Translations {
    private final PhysicalFlowTable flows;
    /** Rule id -> the slot of its one counting entry. */
    private final Long2IntOpenHashMap counting = new Long2IntOpenHashMap();
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
        int slot = counting.get(owner.id());
        return slot >= 0 ? countingEntry(slot) : translation(rules.get(owner.id()));
    }

    /** Keeps {@code t} as {@code owner}'s; every entry it names is planned. */
    void put(Owner owner, Translation t) {
        if (owner.kind() != Owner.Kind.RULE) {
            others.put(owner, t);
            return;
        }
        drop(owner);
        List<PhysicalRule> one = t.flows();
        if (one.size() != 1 || !t.groups().isEmpty()) {
            rules.put(owner.id(), t);
            return;
        }
        PhysicalRule r = one.get(0);
        int slot = flows.slotOf(r.physicalKey());
        if (r.role() == PhysicalRule.Role.COUNTING && r.tag() == 0 && slot >= 0
                && flows.contentAt(slot).instructions().equals(r.instructions())) {
            counting.put(owner.id(), slot);
        } else {
            rules.put(owner.id(), r);
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
            rules.remove(owner.id());
        } else {
            others.remove(owner);
        }
    }

    private Translation countingEntry(int slot) {
        PhysicalRule r = new PhysicalRule(flows.keyAt(slot), flows.contentAt(slot).instructions(),
                PhysicalRule.Role.COUNTING, 0);
        return new Translation(List.of(r), List.of());
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
