package org.uno.oneswitch.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;

/**
 * A physical switch of the platform: its id in the description ("host", "snic0"), role, datapath
 * id and declared ports.
 */
public record SwitchSpec(String id, Role role, DatapathId datapathId, List<PortSpec> ports) {
    /** Where the switch runs. */
    public enum Role {
        HOST, SNIC
    }

    public SwitchSpec {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(datapathId, "datapathId");
        ports = List.copyOf(ports);
    }

    public Optional<PortSpec> port(String name) {
        return ports.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    public Optional<PortSpec> port(OFPort number) {
        return ports.stream().filter(p -> p.number().equals(number)).findFirst();
    }
}
