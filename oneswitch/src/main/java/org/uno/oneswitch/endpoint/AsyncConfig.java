package org.uno.oneswitch.endpoint;

import org.projectfloodlight.openflow.protocol.OFAsyncSet;
import org.projectfloodlight.openflow.protocol.OFControllerRole;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMessage;

/**
 * A controller connection's asynchronous-message configuration (OpenFlow 1.3 SET_ASYNC): per role
 * (master or equal, slave), a bit mask of the reasons for which PACKET_IN, PORT_STATUS and
 * FLOW_REMOVED are sent. The defaults are Open vSwitch's (compared in tests/oneswitch/test_handshake.py):
 * master and equal get everything but invalid-TTL packet-ins, slaves only port status.
 */
record AsyncConfig(long packetInMaster, long packetInSlave, long portStatusMaster, long portStatusSlave,
                   long flowRemovedMaster, long flowRemovedSlave) {
    static final AsyncConfig DEFAULT = new AsyncConfig(0x3, 0, 0x7, 0x7, 0xf, 0);

    static AsyncConfig of(OFAsyncSet s) {
        return new AsyncConfig(s.getPacketInMaskEqualMaster(), s.getPacketInMaskSlave(),
                s.getPortStatusMaskEqualMaster(), s.getPortStatusMaskSlave(), s.getFlowRemovedMaskEqualMaster(),
                s.getFlowRemovedMaskSlave());
    }

    OFMessage reply(OFFactory f, long xid) {
        return f.buildAsyncGetReply().setXid(xid).setPacketInMaskEqualMaster(packetInMaster)
                .setPacketInMaskSlave(packetInSlave).setPortStatusMaskEqualMaster(portStatusMaster)
                .setPortStatusMaskSlave(portStatusSlave).setFlowRemovedMaskEqualMaster(flowRemovedMaster)
                .setFlowRemovedMaskSlave(flowRemovedSlave).build();
    }

    boolean packetIn(OFControllerRole role, int reason) {
        return bit(role == OFControllerRole.ROLE_SLAVE ? packetInSlave : packetInMaster, reason);
    }

    boolean portStatus(OFControllerRole role, int reason) {
        return bit(role == OFControllerRole.ROLE_SLAVE ? portStatusSlave : portStatusMaster, reason);
    }

    boolean flowRemoved(OFControllerRole role, int reason) {
        return bit(role == OFControllerRole.ROLE_SLAVE ? flowRemovedSlave : flowRemovedMaster, reason);
    }

    private static boolean bit(long mask, int reason) {
        return reason < 32 && (mask & (1L << reason)) != 0;
    }
}
