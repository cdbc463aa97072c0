package org.uno.oneswitch.core;

import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.uno.oneswitch.stats.PortDescription;

/**
 * Where the virtual switch's asynchronous messages go: every controller connection that should
 * receive them (by role and configuration). Implemented by the northbound endpoint, which encodes
 * the events.
 */
public interface ControllerNotifier {
    void packetIn(VirtualPacketIn packet);

    void portStatus(OFPortReason reason, PortDescription port);

    void flowRemoved(RuleRemoved removed);
}
