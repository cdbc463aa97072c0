package org.uno.oneswitch.core;

import org.uno.oneswitch.model.PhysicalPacketIn;

/**
 * What the southbound controller reports about the physical switches. Implemented by
 * {@link VirtualSwitch}; all calls happen on OneSwitch's event loop.
 */
public interface PhysicalEvents {
    /** {@code switchId} finished its handshake; {@code tables} is what it reported of its tables. */
    void switchConnected(String switchId, SwitchTables tables);

    /** {@code switchId}'s connection closed. */
    void switchDisconnected(String switchId);

    /** {@code switchId} reported a port added, deleted or changed. */
    void portsChanged(String switchId);

    /** {@code switchId} sent a packet to the controller. */
    void packetIn(String switchId, PhysicalPacketIn packetIn);
}
