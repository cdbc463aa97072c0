package org.uno.oneswitch.endpoint;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowRemoved;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.projectfloodlight.openflow.protocol.OFPortStatus;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.ver13.OFFlowRemovedReasonSerializerVer13;
import org.projectfloodlight.openflow.protocol.ver13.OFPacketInReasonSerializerVer13;
import org.projectfloodlight.openflow.protocol.ver13.OFPortReasonSerializerVer13;
import org.uno.oneswitch.core.ControllerNotifier;
import org.uno.oneswitch.core.RuleRemoved;
import org.uno.oneswitch.core.VirtualPacketIn;
import org.uno.oneswitch.stats.PortDescription;

/**
 * The open controller connections, and who gets which asynchronous message: as each connection's
 * {@link AsyncConfig} says for its role (by default PACKET_IN and FLOW_REMOVED go to equal and
 * master connections, PORT_STATUS to all); passive (service)
 * connections, like Open vSwitch's, get them only after setting a non-zero miss_send_len; a
 * controller that stops reading loses PACKET_INs rather than making OneSwitch buffer without end.
 */
final class Controllers implements ControllerNotifier {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    private final Set<ControllerConnection> connections = new LinkedHashSet<>();

    void add(ControllerConnection c) {
        connections.add(c);
    }

    /** False if {@code c} was not among the connections (it was refused). */
    boolean remove(ControllerConnection c) {
        return connections.remove(c);
    }

    /** How many passive (service) connections are open. */
    int passive() {
        return (int) connections.stream().filter(ControllerConnection::passive).count();
    }

    Collection<ControllerConnection> all() {
        return Collections.unmodifiableSet(connections);
    }

    /** How many connections finished their handshake. */
    int connected() {
        return (int) connections.stream().filter(ControllerConnection::negotiated).count();
    }

    /** PACKET_INs are dropped for a connection whose controller does not keep up (its buffer is full). */
    @Override
    public void packetIn(VirtualPacketIn packet) {
        OFPacketIn msg = AsyncMessages.packetIn(OF13, packet);
        int reason = OFPacketInReasonSerializerVer13.toWireValue(msg.getReason());
        for (ControllerConnection c : connections) {
            if (c.receivesAsync() && c.async().packetIn(c.role(), reason) && c.writable()) {
                c.send(msg);
            }
        }
    }

    @Override
    public void flowRemoved(RuleRemoved removed) {
        OFFlowRemoved msg = AsyncMessages.flowRemoved(OF13, removed);
        int reason = OFFlowRemovedReasonSerializerVer13.toWireValue(msg.getReason());
        for (ControllerConnection c : connections) {
            if (c.receivesAsync() && c.async().flowRemoved(c.role(), reason)) {
                c.send(msg);
            }
        }
    }

    @Override
    public void portStatus(OFPortReason why, PortDescription port) {
        OFPortStatus msg = AsyncMessages.portStatus(OF13, why, port);
        int reason = OFPortReasonSerializerVer13.toWireValue(why);
        for (ControllerConnection c : connections) {
            if (c.receivesAsync() && c.async().portStatus(c.role(), reason)) {
                c.send(msg);
            }
        }
    }
}
