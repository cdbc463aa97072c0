package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongIterator;

import org.uno.oneswitch.plan.PhysicalRule;

/**
 * Owner -> translation. Nearly every owner is a virtual rule, whose translation is kept by the rule's
 * id unboxed, so that no key object (and no map entry object) is kept per rule for the collector to
 * copy, and a translation of one entry and no group, the usual one, as that entry alone; the few
 * other owners are in an ordinary map.
 */
final class Translations {
    /** Rule id -> its {@link Translation}, or its one {@link PhysicalRule}. */
    private final Long2ObjectOpenHashMap<Object> rules = new Long2ObjectOpenHashMap<>();
    private final Map<Owner, Translation> others = new HashMap<>();

    /** {@code owner}'s translation, or null. */
    Translation get(Owner owner) {
        return owner.kind() == Owner.Kind.RULE ? translation(rules.get(owner.id())) : others.get(owner);
    }

    void put(Owner owner, Translation t) {
        if (owner.kind() == Owner.Kind.RULE) {
            List<PhysicalRule> flows = t.flows();
            rules.put(owner.id(), flows.size() == 1 && t.groups().isEmpty() ? flows.get(0) : t);
        } else {
            others.put(owner, t);
        }
    }

    /** Removes {@code owner}'s translation and returns it, or null. */
    Translation remove(Owner owner) {
        return owner.kind() == Owner.Kind.RULE ? translation(rules.remove(owner.id())) : others.remove(owner);
    }

    private static Translation translation(Object kept) {
        return kept instanceof PhysicalRule one ? new Translation(List.of(one), List.of()) : (Translation) kept;
    }

    /** The owners, as a copy. */
    List<Owner> owners() {
        List<Owner> out = new ArrayList<>(rules.size() + others.size());
        for (LongIterator ids = rules.keySet().iterator(); ids.hasNext(); ) {
            out.add(Owner.rule(ids.nextLong()));
        }
        out.addAll(others.keySet());
        return out;
    }
}
