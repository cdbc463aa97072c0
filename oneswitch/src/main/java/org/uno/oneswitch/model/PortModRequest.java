package org.uno.oneswitch.model;

import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFPortConfig;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFPort;

/**
 * A PORT_MOD: the config bits of {@code mask} set as in {@code config}, and what the port advertises
 * (bit per OFPPF_*).
 */
public record PortModRequest(OFPort port, MacAddress hwAddr, Set<OFPortConfig> config, Set<OFPortConfig> mask,
                             long advertise) {
    public PortModRequest {
        config = Set.copyOf(config);
        mask = Set.copyOf(mask);
    }

    /** The same change of physical port {@code physical}. */
    public PortModRequest on(OFPort physical) {
        return new PortModRequest(physical, hwAddr, config, mask, advertise);
    }
}
