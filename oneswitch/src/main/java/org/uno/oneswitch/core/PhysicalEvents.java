package org.uno.oneswitch.core;

import java.util.List;

import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.uno.oneswitch.translate.InstalledEntry;

/**
 * What the southbound controller reports about the physical switches. Implemented by
 * {@link VirtualSwitch}; all calls happen on OneSwitch's event loop.
 */
public interface PhysicalEvents {
    /** {@code switchId} finished its handshake; {@code entries} is its flow table as it reported it. */
    void switchConnected(String switchId, List<InstalledEntry> entries);

    /** {@code switchId}'s connection closed. */
    void switchDisconnected(String switchId);

    /** {@code switchId} reported a port added, deleted or changed. */
    void portsChanged(String switchId);

    /** {@code switchId} sent a packet to the controller. */
    void packetIn(String switchId, OFPacketIn packetIn);
}
