package org.uno.oneswitch.store;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;

/**
 * One of the virtual switch's tables keyed by an OpenFlow id: its groups or its meters, everything
 * the controller installed, by id. Holds state only; the group_mod and meter_mod semantics are
 * decided in the core. Each entry also has the id of its copies on the physical switches, the same
 * id but for the few groups OneSwitch renumbers (see {@code core/PhysicalGroupIds}); the table knows
 * which physical ids are taken.
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
    /** Physical id -> id, of the entries whose physical id is not their id (few). */
    private final Map<Long, Long> renumbered = new HashMap<>();
    private final ToLongFunction<V> idOf;
    private final ToLongFunction<V> physicalIdOf;
    private final Notice<V> notice;
    private ChangeListener listener = ChangeListener.NONE;

    private IdTable(ToLongFunction<V> idOf, ToLongFunction<V> physicalIdOf, Notice<V> notice) {
        this.idOf = idOf;
        this.physicalIdOf = physicalIdOf;
        this.notice = notice;
    }

    /** The group table. */
    public static IdTable<VirtualGroup> groups() {
        return new IdTable<>(VirtualGroup::id, VirtualGroup::physicalId, ChangeListener::groupChanged);
    }

    /** The meter table. */
    public static IdTable<VirtualMeter> meters() {
        return new IdTable<>(VirtualMeter::id, VirtualMeter::id, ChangeListener::meterChanged);
    }

    /** Tells {@code l} about every later change. */
    public void setListener(ChangeListener l) {
        listener = l;
    }

    public Optional<V> get(long id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** True when an entry's copies on the physical switches have id {@code physicalId}. */
    public boolean physicalIdTaken(long physicalId) {
        V v = byId.get(physicalId);
        return renumbered.containsKey(physicalId) || v != null && physicalIdOf.applyAsLong(v) == physicalId;
    }

    public void put(V v) {
        long id = idOf.applyAsLong(v);
        V before = byId.get(id);
        notice.changing(listener, id, before);
        forget(before);
        byId.put(id, v);
        long physical = physicalIdOf.applyAsLong(v);
        if (physical != id) {
            renumbered.put(physical, id);
        }
    }

    public void remove(long id) {
        V v = byId.get(id);
        if (v != null) {
            notice.changing(listener, id, v);
            forget(v);
            byId.remove(id);
        }
    }

    private void forget(V v) {
        if (v != null) {
            renumbered.remove(physicalIdOf.applyAsLong(v), idOf.applyAsLong(v));
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
