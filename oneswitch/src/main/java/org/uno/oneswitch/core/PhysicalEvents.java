package org.uno.oneswitch.core;

import java.util.List;

import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.uno.oneswitch.translate.InstalledEntry;
import org.uno.oneswitch.translate.PhysicalGroup;

/**
 * What the southbound controller reports about the physical switches. Implemented by
 * {@link VirtualSwitch}; all calls happen on OneSwitch's event loop.
 */
public interface PhysicalEvents {
    /**
     * {@code switchId} finished its handshake; {@code entries} and {@code groups} are its flow and
     * group tables as it reported them.
     */
    void switchConnected(String switchId, List<InstalledEntry> entries, List<PhysicalGroup> groups);

    /** {@code switchId}'s connection closed. */
    void switchDisconnected(String switchId);

    /** {@code switchId} reported a port added, deleted or changed. */
    void portsChanged(String switchId);

    /** {@code switchId} sent a packet to the controller. */
    void packetIn(String switchId, OFPacketIn packetIn);
}
