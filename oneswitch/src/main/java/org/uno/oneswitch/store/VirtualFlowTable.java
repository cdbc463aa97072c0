package org.uno.oneswitch.store;

import static org.uno.oneswitch.store.RuleColumns.NONE;

import java.util.AbstractCollection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;


import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.VirtualRule;

/**
 * The virtual switch's flow tables: every virtual rule, by key and by id.
 *
 * <p>The rules are kept in columns ({@link RuleColumns}), not as objects: a rule read from the table
 * is made from them, equal to the one stored but not the same object. Indexes file the slots by the
 * rule's id and by its key's hash ({@link SlotIndex}, chained through the slots), and installation
 * order is a list through the slots. Rules with a timeout are also kept
 * as objects, for the once-a-second expiry.
 *
 * <p>Invariant: at most one rule per (table, priority, match) and ids are unique and never reused.
 * Holds state only; OpenFlow's add/modify/delete semantics are decided in the core.
 */
public final class VirtualFlowTable {
    private final RuleColumns rows = new RuleColumns();
    private final SlotIndex byId = new SlotIndex();
    /** Slots by their key's hash (several keys may share one). */
    private final SlotIndex byHash = new SlotIndex();
    private int first = NONE;
    private int last = NONE;
    /** The rules with an idle or hard timeout, by id: the once-a-second expiry looks only at these. */
    private final Map<Long, VirtualRule> timed = new LinkedHashMap<>();
    private final int[] perTable = new int[256];
    private long nextId = 1;
    private ChangeListener listener = ChangeListener.NONE;

    /** The hash a rule with this key is filed under. */
    static long keyHash(int table, int priority, FlowMatch match) {
        return 31L * (31L * table + priority) + match.hashCode();
    }

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
        return read(find(key.table(), key.priority(), key.match()));
    }

    public Optional<VirtualRule> byId(long id) {
        return read(byId.first(id));
    }

    /** Whether a rule has {@code id} (asked without making the rule from its columns). */
    public boolean contains(long id) {
        return byId.first(id) != NONE;
    }

    /** Whether a rule has {@code key} (asked without making the rule from its columns). */
    public boolean contains(RuleKey key) {
        return find(key.table(), key.priority(), key.match()) != NONE;
    }

    /** The rules of {@code table} at {@code priority}, in installation order. */
    public List<VirtualRule> at(int table, int priority) {
        List<VirtualRule> out = new ArrayList<>();
        for (int s = first; s != NONE; s = rows.next(s)) {
            if (rows.table(s) == table && rows.priority(s) == priority) {
                out.add(rows.rule(s));
            }
        }
        return out;
    }

    /** Stores {@code r}, replacing the rule with the same id or key (in place when the key is the same). */
    public void put(VirtualRule r) {
        int slot = byId.first(r.id());
        listener.ruleChanged(r.id(), before(slot));
        if (slot != NONE && rows.hasKey(slot, r.table(), r.priority(), r.match())) {
            rows.write(slot, r);
            indexTimeouts(r);
            return;
        }
        if (slot != NONE) {
            remove(r.id());
        }
        int sameKey = find(r.table(), r.priority(), r.match());
        if (sameKey != NONE) {
            remove(rows.id(sameKey));
        }
        slot = rows.allocate();
        rows.write(slot, r);
        link(slot);
        byHash.add(slot, keyHash(r.table(), r.priority(), r.match()));
        byId.add(slot, r.id());
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
        int slot = byId.first(id);
        if (slot == NONE) {
            return;
        }
        listener.ruleChanged(id, before(slot));
        unlink(slot);
        byHash.remove(slot);
        byId.remove(slot);
        timed.remove(id);
        perTable[rows.table(slot)]--;
        rows.release(slot);
    }

    /** The rules {@code filter} selects, by table, then in installation order. */
    public List<VirtualRule> select(FlowFilter filter) {
        if (filter.strict() && filter.table() != FlowFilter.ALL_TABLES) {
            Optional<VirtualRule> r = read(find(filter.table(), filter.priority(), filter.match()));
            return r.filter(filter::selects).map(List::of).orElse(List.of());
        }
        long mask = filter.cookieMask().getValue();
        long cookie = filter.cookie().getValue() & mask;
        List<VirtualRule> out = new ArrayList<>();
        for (int s = first; s != NONE; s = rows.next(s)) {
            // the columns rule most rules out before a rule is made to test its match
            if ((filter.table() == FlowFilter.ALL_TABLES || rows.table(s) == filter.table())
                    && (rows.cookie(s) & mask) == cookie) {
                VirtualRule r = rows.rule(s);
                if (filter.selects(r)) {
                    out.add(r);
                }
            }
        }
        out.sort(Comparator.comparingInt(VirtualRule::table));
        return out;
    }

    /** Every rule, in installation order (each made as it is reached). */
    public Collection<VirtualRule> all() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<VirtualRule> iterator() {
                return new Iterator<>() {
                    private int at = first;

                    @Override
                    public boolean hasNext() {
                        return at != NONE;
                    }

                    @Override
                    public VirtualRule next() {
                        if (at == NONE) {
                            throw new NoSuchElementException();
                        }
                        VirtualRule r = rows.rule(at);
                        at = rows.next(at);
                        return r;
                    }
                };
            }

            @Override
            public int size() {
                return byId.size();
            }
        };
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

    private Optional<VirtualRule> read(int slot) {
        return slot == NONE ? Optional.empty() : Optional.of(rows.rule(slot));
    }

    /** The rule in {@code slot} for the listener (none to make when nobody listens), or null for no slot. */
    private VirtualRule before(int slot) {
        return slot == NONE || listener == ChangeListener.NONE ? null : rows.rule(slot);
    }

    private int find(int table, int priority, FlowMatch match) {
        long hash = keyHash(table, priority, match);
        for (int s = byHash.first(hash); s != NONE; s = byHash.next(s)) {
            if (rows.hasKey(s, table, priority, match)) {
                return s;
            }
        }
        return NONE;
    }

    /** Appends {@code slot} to the installation order. */
    private void link(int slot) {
        rows.setPrev(slot, last);
        rows.setNext(slot, NONE);
        if (last == NONE) {
            first = slot;
        } else {
            rows.setNext(last, slot);
        }
        last = slot;
    }

    private void unlink(int slot) {
        int p = rows.prev(slot);
        int n = rows.next(slot);
        if (p == NONE) {
            first = n;
        } else {
            rows.setNext(p, n);
        }
        if (n == NONE) {
            last = p;
        } else {
            rows.setPrev(n, p);
        }
    }
}
