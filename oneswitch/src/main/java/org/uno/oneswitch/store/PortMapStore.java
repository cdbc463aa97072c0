package org.uno.oneswitch.store;

import java.util.Objects;

import org.uno.oneswitch.model.PortMap;

/**
 * Holds the current port map. The map itself is immutable, so readers (translation, packet
 * mapping) always see one consistent snapshot; only the port service replaces it, after the rules
 * were retranslated under the new map.
 */
public final class PortMapStore {
    private PortMap current = PortMap.EMPTY;
    private ChangeListener listener = ChangeListener.NONE;

    /** Tells {@code l} about every later change. */
    public void setListener(ChangeListener l) {
        listener = l;
    }

    public PortMap current() {
        return current;
    }

    public void set(PortMap next) {
        Objects.requireNonNull(next, "next");
        listener.portMapChanged(current);
        current = next;
    }
}
