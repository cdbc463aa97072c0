package org.uno.oneswitch.store;

import java.util.Collection;
import java.util.Collections;
import java.util.Optional;
import java.util.TreeMap;

import org.uno.oneswitch.model.VirtualGroup;

/**
 * The virtual switch's group table: every group the controller installed, by id. Holds state
 * only; OpenFlow's group_mod semantics are decided in the core.
 */
public final class VirtualGroupTable {
    private final TreeMap<Long, VirtualGroup> byId = new TreeMap<>();
    private ChangeListener listener = ChangeListener.NONE;

    /** Tells {@code l} about every later change. */
    public void setListener(ChangeListener l) {
        listener = l;
    }

    public Optional<VirtualGroup> get(long id) {
        return Optional.ofNullable(byId.get(id));
    }

    public void put(VirtualGroup g) {
        listener.groupChanged(g.id(), byId.get(g.id()));
        byId.put(g.id(), g);
    }

    public void remove(long id) {
        VirtualGroup g = byId.get(id);
        if (g != null) {
            listener.groupChanged(id, g);
            byId.remove(id);
        }
    }

    /** Every group, by id. */
    public Collection<VirtualGroup> all() {
        return Collections.unmodifiableCollection(byId.values());
    }

    public int size() {
        return byId.size();
    }
}
