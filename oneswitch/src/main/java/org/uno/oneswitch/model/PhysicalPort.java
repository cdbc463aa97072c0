package org.uno.oneswitch.model;

import java.util.Objects;

import org.projectfloodlight.openflow.types.OFPort;

/** A port of one physical switch, named by the switch id of the platform description and the OpenFlow port number. */
public record PhysicalPort(String switchId, OFPort port) {
    public PhysicalPort {
        Objects.requireNonNull(switchId, "switchId");
        Objects.requireNonNull(port, "port");
    }

    @Override
    public String toString() {
        return switchId + ":" + port;
    }
}
