package org.uno.oneswitch.core;

import org.projectfloodlight.openflow.protocol.OFFlowRemoved;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPortStatus;

/**
 * Where the virtual switch's asynchronous messages go: every controller connection that should
 * receive them (by role and configuration). Implemented by the northbound endpoint.
 */
public interface ControllerNotifier {
    void packetIn(OFPacketIn msg);

    void portStatus(OFPortStatus msg);

    void flowRemoved(OFFlowRemoved msg);
}
