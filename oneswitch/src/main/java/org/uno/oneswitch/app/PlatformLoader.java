package org.uno.oneswitch.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

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
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new ConfigException("platform description " + file + ": " + e.getMessage());
        }
    }

    static Topology parse(JsonNode root) {
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
            switches.add(new SwitchSpec(text(s, "id"), role.equals("host") ? SwitchSpec.Role.HOST : SwitchSpec.Role.SNIC,
                    datapathId(text(s, "datapath_id")), ports, mgmt));
        }
        List<SwitchSpec> hosts = switches.stream().filter(s -> s.role() == SwitchSpec.Role.HOST).toList();
        require(hosts.size() == 1, "need exactly one switch with role host, have " + hosts.size());
        SwitchSpec host = hosts.get(0);
        List<Link> links = new ArrayList<>();
        for (JsonNode l : array(root, "pcie_links")) {
            SwitchSpec snic = switches.stream().filter(s -> s.id().equals(text(l, "snic"))).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("pcie link to unknown switch " + text(l, "snic")));
            PortSpec hp = host.port(text(l, "host_port")).orElseThrow(() -> new IllegalArgumentException(
                    "pcie link host port " + text(l, "host_port") + " is not a port of " + host.id()));
            PortSpec sp = snic.port(text(l, "snic_port")).orElseThrow(() -> new IllegalArgumentException(
                    "pcie link sNIC port " + text(l, "snic_port") + " is not a port of " + snic.id()));
            links.add(new Link(new PhysicalPort(host.id(), hp.number()), new PhysicalPort(snic.id(), sp.number())));
        }
        return new Topology(switches, links);
    }

    private static Iterable<JsonNode> array(JsonNode n, String key) {
        JsonNode a = n.get(key);
        require(a != null && a.isArray(), "'" + key + "' must be a list");
        return a;
    }

    private static String text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        require(v != null && v.isTextual(), "'" + key + "' must be a string");
        return v.asText();
    }

    private static int integer(JsonNode n, String key) {
        JsonNode v = n.get(key);
        require(v != null && v.canConvertToInt() && v.asInt() > 0, "'" + key + "' must be a positive integer");
        return v.asInt();
    }

    private static void require(boolean ok, String reason) {
        if (!ok) {
            throw new IllegalArgumentException(reason);
        }
    }

    private static DatapathId datapathId(String s) {
        try {
            return ConfigLoader.datapathId(s);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
    }
}
