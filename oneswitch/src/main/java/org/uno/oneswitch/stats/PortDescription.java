package org.uno.oneswitch.stats;

import java.util.EnumSet;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFPortConfig;
import org.projectfloodlight.openflow.protocol.OFPortFeatures;
import org.projectfloodlight.openflow.protocol.OFPortState;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFPort;

/** A port as OpenFlow 1.3 describes it (port desc). */
public record PortDescription(OFPort port, String name, MacAddress hwAddr, Set<OFPortConfig> config,
                              Set<OFPortState> state, Set<OFPortFeatures> curr, Set<OFPortFeatures> advertised,
                              Set<OFPortFeatures> supported, Set<OFPortFeatures> peer, long currSpeed, long maxSpeed) {
    public PortDescription {
        config = Set.copyOf(config);
        state = Set.copyOf(state);
        curr = Set.copyOf(curr);
        advertised = Set.copyOf(advertised);
        supported = Set.copyOf(supported);
        peer = Set.copyOf(peer);
    }

    /** A port that is down and has no link: what a mapped port is while its switch is away. */
    public static PortDescription down(OFPort port, String name) {
        Set<OFPortFeatures> none = EnumSet.noneOf(OFPortFeatures.class);
        return new PortDescription(port, name, MacAddress.NONE, EnumSet.of(OFPortConfig.PORT_DOWN),
                EnumSet.of(OFPortState.LINK_DOWN), none, none, none, none, 0, 0);
    }

    /** True when a fast-failover bucket watching this port may be used: not down, and with a link. */
    public boolean live() {
        return !config.contains(OFPortConfig.PORT_DOWN) && !state.contains(OFPortState.LINK_DOWN);
    }

    /** This port as number {@code number} named {@code newName} (a physical port as its virtual port). */
    public PortDescription as(OFPort number, String newName) {
        return new PortDescription(number, newName, hwAddr, config, state, curr, advertised, supported, peer,
                currSpeed, maxSpeed);
    }
}
