package org.uno.oneswitch.store;

import java.util.Collection;
import java.util.Collections;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;

/**
 * One of the virtual switch's tables keyed by an OpenFlow id: its groups or its meters, everything
 * the controller installed, by id. Holds state only; the group_mod and meter_mod semantics are
 * decided in the core.
 *
 * @param <V> what the table holds
 */
public final class IdTable<V> {
    /** Tells a listener that entry {@code id} is about to change from {@code before}. */
    @FunctionalInterface
    private interface Notice<V> {
        void changing(ChangeListener l, long id, V before);
    }

    private final TreeMap<Long, V> byId = new TreeMap<>();
    private final ToLongFunction<V> idOf;
    private final Notice<V> notice;
    private ChangeListener listener = ChangeListener.NONE;

    private IdTable(ToLongFunction<V> idOf, Notice<V> notice) {
        this.idOf = idOf;
        this.notice = notice;
    }

    /** The group table. */
    public static IdTable<VirtualGroup> groups() {
        return new IdTable<>(VirtualGroup::id, ChangeListener::groupChanged);
    }

    /** The meter table. */
    public static IdTable<VirtualMeter> meters() {
        return new IdTable<>(VirtualMeter::id, ChangeListener::meterChanged);
    }

    /** Tells {@code l} about every later change. */
    public void setListener(ChangeListener l) {
        listener = l;
    }

    public Optional<V> get(long id) {
        return Optional.ofNullable(byId.get(id));
    }

    public void put(V v) {
        long id = idOf.applyAsLong(v);
        notice.changing(listener, id, byId.get(id));
        byId.put(id, v);
    }

    public void remove(long id) {
        V v = byId.get(id);
        if (v != null) {
            notice.changing(listener, id, v);
            byId.remove(id);
        }
    }

    /** Every entry, by id. */
    public Collection<V> all() {
        return Collections.unmodifiableCollection(byId.values());
    }

    public int size() {
        return byId.size();
    }
}
