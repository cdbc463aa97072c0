package org.uno.oneswitch.model;

import java.util.Objects;

/** A point-to-point link between two physical switches (a PCIe link between host and sNIC). */
public record Link(PhysicalPort a, PhysicalPort b) {
    public Link {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        if (a.switchId().equals(b.switchId())) {
            throw new IllegalArgumentException("link must join two switches: " + a + " - " + b);
        }
    }

    /** The end on {@code switchId}'s side, or null when the link does not touch it. */
    public PhysicalPort endOn(String switchId) {
        if (a.switchId().equals(switchId)) {
            return a;
        }
        return b.switchId().equals(switchId) ? b : null;
    }

    /** The end opposite {@code end}. */
    public PhysicalPort other(PhysicalPort end) {
        return end.equals(a) ? b : a;
    }
}
