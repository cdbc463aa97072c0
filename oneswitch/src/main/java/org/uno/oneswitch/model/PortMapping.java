package org.uno.oneswitch.model;

import java.util.Objects;

import org.projectfloodlight.openflow.types.OFPort;

/**
 * One virtual port of the virtual switch and the physical port it stands for.
 *
 * @param virtualPort the port number the controller sees (1..0xfffffeff, or LOCAL for a LOCAL port)
 * @param physical    the physical switch and port number
 * @param physicalName the interface name of the physical port
 * @param name        the name the controller sees in PORT_DESC
 */
public record PortMapping(OFPort virtualPort, PhysicalPort physical, String physicalName, String name) {
    public PortMapping {
        Objects.requireNonNull(virtualPort, "virtualPort");
        Objects.requireNonNull(physical, "physical");
        Objects.requireNonNull(physicalName, "physicalName");
        Objects.requireNonNull(name, "name");
        int n = virtualPort.getPortNumber();
        if ((n == 0 || Integer.compareUnsigned(n, OFPort.MAX.getPortNumber()) >= 0) && !virtualPort.equals(OFPort.LOCAL)) {
            throw new IllegalArgumentException("virtual port number out of range: " + Integer.toUnsignedString(n));
        }
        if (virtualPort.equals(OFPort.LOCAL) != physical.port().equals(OFPort.LOCAL)) {
            throw new IllegalArgumentException("the LOCAL port is a LOCAL port's, and only that");
        }
        if (name.isEmpty() || name.length() > 15) {
            throw new IllegalArgumentException("port name must have 1 to 15 characters: '" + name + "'");
        }
    }
}
