package org.uno.oneswitch.core;

/**
 * A request to map a physical port to a virtual port.
 *
 * @param switchId    platform id of the physical switch ("host", "snic0")
 * @param portName    interface name of the physical port, or null when {@code ofport} is given
 * @param ofport      OpenFlow port number of the physical port, or null when {@code portName} is given
 * @param virtualPort the virtual port number to use, or null to take the lowest free one
 * @param name        the name the controller sees, or null for the physical name
 */
public record PortRequest(String switchId, String portName, Long ofport, Long virtualPort, String name) {
}
