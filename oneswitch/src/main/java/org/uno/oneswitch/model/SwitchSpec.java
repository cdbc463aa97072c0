package org.uno.oneswitch.model;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;

/**
 * A physical switch of the platform: its id in the description ("host", "snic0"), role, datapath
 * id, declared ports, the paths of its OpenFlow management Unix socket and of its daemon's
 * control socket (what ovs-appctl uses), of the certificate it proves itself with on an SSL
 * southbound, and the address of the sNIC daemon of a sNIC that is a machine of its
 * own (which purges that switch's cached datapath flows for OneSwitch), if the description names
 * them.
 */
public record SwitchSpec(String id, Role role, DatapathId datapathId, List<PortSpec> ports,
                         Optional<String> managementSocket, Optional<String> controlSocket,
                         Optional<String> certificate, Optional<InetSocketAddress> snicDaemon) {
    /** Where the switch runs. */
    public enum Role {
        HOST, SNIC
    }

    public SwitchSpec {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(datapathId, "datapathId");
        ports = List.copyOf(ports);
        Objects.requireNonNull(managementSocket, "managementSocket");
        Objects.requireNonNull(controlSocket, "controlSocket");
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(snicDaemon, "snicDaemon");
    }

    /** A switch without management or control socket. */
    public SwitchSpec(String id, Role role, DatapathId datapathId, List<PortSpec> ports) {
        this(id, role, datapathId, ports, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    public Optional<PortSpec> port(String name) {
        return ports.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    public Optional<PortSpec> port(OFPort number) {
        return ports.stream().filter(p -> p.number().equals(number)).findFirst();
    }
}
