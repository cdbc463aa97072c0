package org.uno.oneswitch.model;

import java.util.Locale;
import java.util.Objects;

import org.projectfloodlight.openflow.types.OFPort;

/** A port of a physical switch as the platform description declares it. */
public record PortSpec(String name, OFPort number, Kind kind) {
    /** What the port connects to. */
    public enum Kind {
        /** One end of a PCIe link between the host and an sNIC switch (internal, never virtual). */
        PCIE,
        /** A VM on the host. */
        VM,
        /** An Ethernet port of an sNIC. */
        WIRE,
        /** A network function's port. */
        NF,
        /** Anything else the platform declares. */
        OTHER;

        /** The kind named in the platform description ("pcie", "vm", ...); unknown names are OTHER. */
        public static Kind parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                return OTHER;
            }
        }
    }

    public PortSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(number, "number");
        Objects.requireNonNull(kind, "kind");
    }
}
