package org.uno.oneswitch.app;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.net.InetAddresses;

import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Link;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;

/**
 * Reads the platform's JSON description (schema "uno-platform/1", snic-datapath/README.md): which
 * switch is the host and which the sNICs, their datapath ids and ports, and the PCIe links.
 */
public final class PlatformLoader {
    private static final String SCHEMA = "uno-platform/1";

    private PlatformLoader() {
    }

    public static Topology load(Path file) throws ConfigException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readAllBytes(file));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ConfigException("platform description " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read platform description " + file + ": "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
        try {
            return parse(root);
        } catch (ConfigException e) {
            throw new ConfigException("platform description " + file + ": " + e.getMessage());
        }
    }

    private static Optional<String> optional(String value) {
        return value.isEmpty() ? Optional.empty() : Optional.of(value);
    }

    /** A sNIC daemon's "IP:PORT". */
    private static InetSocketAddress daemonAddress(String daemon) throws ConfigException {
        int colon = daemon.lastIndexOf(':');
        String ip = colon > 0 ? daemon.substring(0, colon) : "";
        String port = daemon.substring(colon + 1);
        require(InetAddresses.isInetAddress(ip) && port.matches("[0-9]{1,5}") && Integer.parseInt(port) > 0
                && Integer.parseInt(port) < 65536, "a sNIC daemon's address must be IP:PORT, not " + daemon);
        return new InetSocketAddress(InetAddresses.forString(ip), Integer.parseInt(port));
    }

    static Topology parse(JsonNode root) throws ConfigException {
        require(SCHEMA.equals(root.path("schema").asText()), "schema must be " + SCHEMA);
        List<SwitchSpec> switches = new ArrayList<>();
        for (JsonNode s : array(root, "switches")) {
            List<PortSpec> ports = new ArrayList<>();
            for (JsonNode p : array(s, "ports")) {
                ports.add(new PortSpec(text(p, "name"), OFPort.of(integer(p, "ofport")),
                        PortSpec.Kind.parse(text(p, "kind"))));
            }
            String role = text(s, "role");
            require(role.equals("host") || role.equals("snic"), "switch role must be host or snic, not " + role);
            String openflow = s.path("openflow").asText("");
            Optional<String> mgmt = openflow.startsWith("unix:") ? Optional.of(openflow.substring(5)) : Optional.empty();
            String appctl = s.path("appctl").asText("");
            String certificate = s.path("ssl_certificate").asText("");
            String daemon = s.path("machine").path("daemon").asText("");
            switches.add(new SwitchSpec(text(s, "id"), role.equals("host") ? SwitchSpec.Role.HOST : SwitchSpec.Role.SNIC,
                    datapathId(text(s, "datapath_id")), ports, mgmt, optional(appctl), optional(certificate),
                    daemon.isEmpty() ? Optional.empty() : Optional.of(daemonAddress(daemon))));
        }
        List<SwitchSpec> hosts = switches.stream().filter(s -> s.role() == SwitchSpec.Role.HOST).toList();
        require(hosts.size() == 1, "need exactly one switch with role host, have " + hosts.size());
        SwitchSpec host = hosts.get(0);
        List<Link> links = new ArrayList<>();
        for (JsonNode l : array(root, "pcie_links")) {
            String snicId = text(l, "snic");
            String hostPort = text(l, "host_port");
            String snicPort = text(l, "snic_port");
            SwitchSpec snic = switches.stream().filter(s -> s.id().equals(snicId)).findFirst().orElse(null);
            require(snic != null, "pcie link to unknown switch " + snicId);
            PortSpec hp = host.port(hostPort).orElse(null);
            PortSpec sp = snic.port(snicPort).orElse(null);
            require(hp != null, "pcie link host port " + hostPort + " is not a port of " + host.id());
            require(sp != null, "pcie link sNIC port " + snicPort + " is not a port of " + snicId);
            links.add(new Link(new PhysicalPort(host.id(), hp.number()), new PhysicalPort(snicId, sp.number())));
        }
        try {
            return new Topology(switches, links);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    private static Iterable<JsonNode> array(JsonNode n, String key) throws ConfigException {
        JsonNode a = n.get(key);
        require(a != null && a.isArray(), "'" + key + "' must be a list");
        return a;
    }

    private static String text(JsonNode n, String key) throws ConfigException {
        JsonNode v = n.get(key);
        require(v != null && v.isTextual(), "'" + key + "' must be a string");
        return v.asText();
    }

    private static int integer(JsonNode n, String key) throws ConfigException {
        JsonNode v = n.get(key);
        require(v != null && v.canConvertToInt() && v.asInt() > 0, "'" + key + "' must be a positive integer");
        return v.asInt();
    }

    private static void require(boolean ok, String reason) throws ConfigException {
        if (!ok) {
            throw new ConfigException(reason);
        }
    }

    private static DatapathId datapathId(String s) throws ConfigException {
        return ConfigLoader.datapathId(s);
    }
}
