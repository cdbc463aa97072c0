package org.uno.oneswitch.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import it.unimi.dsi.fastutil.longs.Long2ObjectLinkedOpenHashMap;

import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.VirtualRule;

/**
 * The virtual switch's flow tables: every virtual rule, by key and by id.
 *
 * <p>Invariant: at most one rule per (table, priority, match) and ids are unique and never reused.
 * Holds state only; OpenFlow's add/modify/delete semantics are decided in the core.
 */
public final class VirtualFlowTable {
    private final RulesByKey byKey = new RulesByKey();
    /** By id, in installation order (a replacement with the same key keeps its place). */
    private final Long2ObjectLinkedOpenHashMap<VirtualRule> byId = new Long2ObjectLinkedOpenHashMap<>();
    /** The rules with an idle or hard timeout, by id: the once-a-second expiry looks only at these. */
    private final Map<Long, VirtualRule> timed = new LinkedHashMap<>();
    private final int[] perTable = new int[256];
    private long nextId = 1;
    private ChangeListener listener = ChangeListener.NONE;

    /** Tells {@code l} about every later change. */
    public void setListener(ChangeListener l) {
        listener = l;
    }

    /** A fresh rule id. */
    public long newId() {
        return nextId++;
    }

    /** The id {@link #newId} gives next. */
    public long nextId() {
        return nextId;
    }

    /** Continues ids after {@code next} (restoring saved rules). */
    public void continueIdsFrom(long next) {
        nextId = Math.max(nextId, next);
    }

    public Optional<VirtualRule> get(RuleKey key) {
        return Optional.ofNullable(byKey.get(key));
    }

    public Optional<VirtualRule> byId(long id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Stores {@code r}, replacing the rule with the same id or key (in place when the key is the same). */
    public void put(VirtualRule r) {
        VirtualRule old = byId.get(r.id());
        listener.ruleChanged(r.id(), old);
        if (old != null && old.sameKey(r)) {
            byKey.put(r);
            byId.put(r.id(), r);
            indexTimeouts(r);
            return;
        }
        if (old != null) {
            remove(old.id());
        }
        VirtualRule sameKey = byKey.get(r.key());
        if (sameKey != null) {
            remove(sameKey.id());
        }
        byKey.put(r);
        byId.put(r.id(), r);
        indexTimeouts(r);
        perTable[r.table()]++;
    }

    private void indexTimeouts(VirtualRule r) {
        if (r.idleTimeout() > 0 || r.hardTimeout() > 0) {
            timed.put(r.id(), r);
        } else {
            timed.remove(r.id());
        }
    }

    /** Removes the rule with {@code id} if present. */
    public void remove(long id) {
        VirtualRule r = byId.get(id);
        if (r != null) {
            listener.ruleChanged(id, r);
            byId.remove(id);
            byKey.remove(r);
            timed.remove(id);
            perTable[r.table()]--;
        }
    }

    /** The rules {@code filter} selects, by table, then in installation order. */
    public List<VirtualRule> select(FlowFilter filter) {
        if (filter.strict() && filter.table() != FlowFilter.ALL_TABLES) {
            VirtualRule r = byKey.get(new RuleKey(filter.table(), filter.priority(), filter.match()));
            return r != null && filter.selects(r) ? List.of(r) : List.of();
        }
        List<VirtualRule> out = new ArrayList<>();
        for (VirtualRule r : byId.values()) {
            if (filter.selects(r)) {
                out.add(r);
            }
        }
        out.sort(java.util.Comparator.comparingInt(VirtualRule::table));
        return out;
    }

    /** Every rule, in installation order. */
    public Collection<VirtualRule> all() {
        return Collections.unmodifiableCollection(byId.values());
    }

    /** The rules with an idle or hard timeout, in installation order. */
    public Collection<VirtualRule> timed() {
        return Collections.unmodifiableCollection(timed.values());
    }

    /** How many rules table {@code table} holds. */
    public int count(int table) {
        return perTable[table];
    }

    public int size() {
        return byId.size();
    }
}
