package org.uno.oneswitch.app;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import org.projectfloodlight.openflow.types.DatapathId;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.rest.RestServer;

/**
 * Reads OneSwitch's configuration: defaults, then a YAML/JSON file (--config), then flags, each
 * overriding the one before. Unknown keys and flags, wrong types and bad values are refused with
 * a one-line reason.
 */
public final class ConfigLoader {
    /** Every setting: YAML key, flag, default, help. Order is the --help order. */
    private static final String[][] OPTIONS = {
        {"platform", "--platform", "", "platform description (platform.json) naming the host/sNIC switches"},
        {"datapath_id", "--datapath-id", "0x0000554e4f000001", "datapath id of the virtual switch"},
        {"controllers", "--controller", "tcp:127.0.0.1:6653", "controller to connect to, tcp:IP:PORT; repeat for several, 'none' for none"},
        {"listen", "--listen", "ptcp:6634:127.0.0.1", "passive OpenFlow listener for controllers and ovs-ofctl, ptcp:PORT[:IP] or 'none'"},
        {"southbound", "--southbound", "ptcp:6643:127.0.0.1", "listener for the physical switches, ptcp:PORT[:IP] or pssl:PORT[:IP] (SSL: each switch proves itself with its certificate)"},
        {"ssl_private_key", "--private-key", "", "OneSwitch's private key (PEM) for a pssl: southbound"},
        {"ssl_certificate", "--certificate", "", "OneSwitch's certificate (PEM) for a pssl: southbound"},
        {"ssl_ca_cert", "--ca-cert", "", "the CA certificate (PEM) the switches' certificates must be signed by (ovs-pki's switchca)"},
        {"rest", "--rest", "127.0.0.1:8181", "REST server, IP:PORT or 'none'"},
        {"rest_token_file", "--rest-token-file", "", "file holding the token REST clients must send as X-Auth-Token (none: no token)"},
        {"rest_request_timeout", "--rest-request-timeout", "10", "seconds a REST client has to send a whole request once it began (1..3600)"},
        {"rest_idle_timeout", "--rest-idle-timeout", "60", "seconds a REST connection may stay idle between requests (1..3600)"},
        {"rest_max_connections", "--rest-max-connections", "64", "REST connections served at once; more are answered 503 (1..10000)"},
        {"auto_map", "--auto-map", "vm,wire", "port kinds of the description mapped to virtual ports at start (vm,wire,nf,other) or 'none'"},
        {"tables", "--tables", "64", "number of virtual flow tables (1..200)"},
        {"echo_interval", "--echo-interval", "5", "seconds of silence before an echo probe on an OpenFlow connection"},
        {"controller_backlog_limit", "--controller-backlog-limit", "16", "MiB queued for a controller connection that does not read, past which it is closed (1..1024)"},
        {"max_passive_connections", "--max-passive-connections", "64", "passive OpenFlow connections served at once; more are closed (1..10000)"},
        {"reconnect_max_backoff", "--reconnect-max-backoff", "8", "longest wait in seconds between attempts to reach a controller"},
        {"command_sockets", "--command-sockets", "true", "send flow_mods/stats/barriers over the bridges' management sockets named in the description (true/false)"},
        {"switch_wait", "--switch-wait", "10", "seconds to wait at start for the switches before controllers are served (0..300)"},
        {"remap_grace", "--remap-grace", "5000", "milliseconds a remap keeps the old port's entries (0..60000)"},
        {"max_rules", "--max-rules", "250000", "virtual rules held at most; an add past it is refused with TABLE_FULL (1..10000000)"},
        {"state_file", "--state-file", "", "file where rules, groups, port map and tags are saved and restored from"},
        {"log_level", "--log-level", "info", "error, warn, info or debug"},
    };

    /** What the command line asked for. */
    public record Parsed(Config config, boolean checkOnly, boolean help) {
    }

    private ConfigLoader() {
    }

    /** Parses {@code args}; throws with the reason on anything invalid. */
    public static Parsed load(String[] args) throws ConfigException {
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (String[] o : OPTIONS) {
            values.put(o[0], o[2].isEmpty() ? List.of() : List.of(o[2]));
        }
        boolean checkOnly = false;
        Map<String, List<String>> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                return new Parsed(null, false, true);
            } else if (a.equals("--check-config")) {
                checkOnly = true;
            } else if (a.equals("--config")) {
                readFile(Path.of(value(args, ++i, a)), values);
            } else {
                String key = keyOfFlag(a);
                String v = value(args, ++i, a);
                List<String> list = flags.computeIfAbsent(key, k -> new ArrayList<>());
                if (key.equals("controllers") || key.equals("auto_map")) {
                    list.add(v);
                } else {
                    list.clear();
                    list.add(v);
                }
            }
        }
        values.putAll(flags);
        return new Parsed(build(values), checkOnly, false);
    }

    /** The --help text. */
    public static String usage() {
        StringBuilder sb = new StringBuilder("usage: java -jar oneswitch.jar [--config FILE] [flags] [--check-config]\n\n"
                + "OneSwitch: one virtual OpenFlow 1.3 switch in front of the host and sNIC switches.\n\n"
                + "  --config FILE        YAML or JSON file with the keys below (flags override it)\n"
                + "  --check-config       validate the configuration and platform description, then exit\n");
        for (String[] o : OPTIONS) {
            sb.append(String.format("  %-28s %s (key %s, default %s)%n", o[1] + " V", o[3], o[0],
                    o[2].isEmpty() ? "none" : o[2]));
        }
        return sb.toString();
    }

    private static String value(String[] args, int i, String flag) throws ConfigException {
        if (i >= args.length) {
            throw new ConfigException("flag " + flag + " needs a value");
        }
        return args[i];
    }

    private static String keyOfFlag(String flag) throws ConfigException {
        for (String[] o : OPTIONS) {
            if (o[1].equals(flag)) {
                return o[0];
            }
        }
        throw new ConfigException("unknown flag " + flag + " (see --help)");
    }

    private static void readFile(Path file, Map<String, List<String>> values) throws ConfigException {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(Files.readAllBytes(file));
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ConfigException("config file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read config " + file + ": " + e.getMessage().lines().findFirst().orElse(""));
        }
        if (root == null || root.isNull() || root.isMissingNode()) {
            return;
        }
        if (!root.isObject()) {
            throw new ConfigException("config " + file + " must be a mapping of keys to values");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!values.containsKey(e.getKey())) {
                throw new ConfigException("config " + file + ": unknown key '" + e.getKey() + "'");
            }
            List<String> list = new ArrayList<>();
            JsonNode v = e.getValue();
            if (v.isArray()) {
                v.forEach(x -> list.add(x.asText()));
                if (list.isEmpty()) {
                    list.add("none");
                }
            } else if (v.isValueNode()) {
                list.add(v.asText());
            } else {
                throw new ConfigException("config " + file + ": key '" + e.getKey() + "' must be a value or a list");
            }
            values.put(e.getKey(), list);
        }
    }

    private static Config build(Map<String, List<String>> v) throws ConfigException {
        List<InetSocketAddress> controllers = new ArrayList<>();
        for (String c : v.get("controllers")) {
            if (!c.equals("none")) {
                controllers.add(Address.active(c));
            }
        }
        String listen = single(v, "listen");
        String rest = single(v, "rest");
        Set<PortSpec.Kind> kinds = EnumSet.noneOf(PortSpec.Kind.class);
        for (String list : v.get("auto_map")) {
            for (String k : list.split(",")) {
                if (!k.isBlank() && !k.equals("none")) {
                    PortSpec.Kind kind = PortSpec.Kind.parse(k.trim());
                    if (kind == PortSpec.Kind.PCIE || (kind == PortSpec.Kind.OTHER && !k.trim().equalsIgnoreCase("other"))) {
                        throw new ConfigException("auto_map: '" + k + "' is not a port kind that can be mapped");
                    }
                    kinds.add(kind);
                }
            }
        }
        String level = single(v, "log_level").toLowerCase(Locale.ROOT);
        if (!List.of("error", "warn", "info", "debug").contains(level)) {
            throw new ConfigException("log_level must be error, warn, info or debug, not '" + level + "'");
        }
        List<String> platform = v.get("platform");
        return new Config(datapathId(single(v, "datapath_id")), controllers,
                listen.equals("none") ? Optional.empty() : Optional.of(Address.passive(listen)),
                Address.passiveMaybeSsl(single(v, "southbound")),
                rest.equals("none") ? Optional.empty() : Optional.of(Address.hostPort(rest, rest)),
                platform.isEmpty() ? Optional.empty() : Optional.of(Path.of(platform.get(0))), kinds,
                integer(v, "tables", 1, 200), integer(v, "echo_interval", 1, 3600),
                integer(v, "reconnect_max_backoff", 1, 3600) * 1000L, level, bool(v, "command_sockets"),
                integer(v, "remap_grace", 0, 60000), integer(v, "max_rules", 1, 10_000_000), optionalPath(v, "state_file"),
                integer(v, "controller_backlog_limit", 1, 1024) * (1L << 20), integer(v, "max_passive_connections", 1, 10000),
                integer(v, "switch_wait", 0, 300) * 1000L,
                new RestServer.Limits(integer(v, "rest_request_timeout", 1, 3600) * 1000L,
                        integer(v, "rest_idle_timeout", 1, 3600) * 1000L, integer(v, "rest_max_connections", 1, 10000),
                        token(optionalPath(v, "rest_token_file"))), southboundSsl(v));
    }

    /** The SSL files of a pssl: southbound: all three, and only with pssl. */
    private static Optional<Config.SslFiles> southboundSsl(Map<String, List<String>> v) throws ConfigException {
        boolean ssl = single(v, "southbound").startsWith("pssl:");
        Optional<Path> key = optionalPath(v, "ssl_private_key");
        Optional<Path> cert = optionalPath(v, "ssl_certificate");
        Optional<Path> ca = optionalPath(v, "ssl_ca_cert");
        if (!ssl) {
            if (key.isPresent() || cert.isPresent() || ca.isPresent()) {
                throw new ConfigException("ssl_private_key, ssl_certificate and ssl_ca_cert are for a pssl: southbound");
            }
            return Optional.empty();
        }
        if (key.isEmpty() || cert.isEmpty() || ca.isEmpty()) {
            throw new ConfigException("a pssl: southbound needs ssl_private_key, ssl_certificate and ssl_ca_cert");
        }
        for (Path p : List.of(key.get(), cert.get(), ca.get())) {
            if (!Files.isReadable(p)) {
                throw new ConfigException("cannot read " + p);
            }
        }
        return Optional.of(new Config.SslFiles(key.get(), cert.get(), ca.get()));
    }

    /** The token in {@code file} (surrounding whitespace dropped), if a file is named. */
    private static Optional<String> token(Optional<Path> file) throws ConfigException {
        if (file.isEmpty()) {
            return Optional.empty();
        }
        String token;
        try {
            token = Files.readString(file.get()).strip();
        } catch (IOException e) {
            throw new ConfigException("cannot read rest_token_file " + file.get() + ": " + e.getMessage());
        }
        if (token.isEmpty()) {
            throw new ConfigException("rest_token_file " + file.get() + " is empty");
        }
        return Optional.of(token);
    }

    private static Optional<Path> optionalPath(Map<String, List<String>> v, String key) throws ConfigException {
        List<String> l = v.get(key);
        if (l.size() > 1) {
            throw new ConfigException(key + " takes one value");
        }
        return l.isEmpty() || l.get(0).equals("none") ? Optional.empty() : Optional.of(Path.of(l.get(0)));
    }

    private static String single(Map<String, List<String>> v, String key) throws ConfigException {
        List<String> l = v.get(key);
        if (l.size() != 1) {
            throw new ConfigException(key + " takes one value");
        }
        return l.get(0);
    }

    private static boolean bool(Map<String, List<String>> v, String key) throws ConfigException {
        String s = single(v, key);
        if (!s.equals("true") && !s.equals("false")) {
            throw new ConfigException(key + " must be true or false, not '" + s + "'");
        }
        return s.equals("true");
    }

    private static int integer(Map<String, List<String>> v, String key, int min, int max) throws ConfigException {
        String s = single(v, key);
        try {
            int n = Integer.parseInt(s);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException(key + " must be an integer from " + min + " to " + max + ", not '" + s + "'");
    }

    static DatapathId datapathId(String s) throws ConfigException {
        try {
            String hex = s.startsWith("0x") ? s.substring(2) : s.replace(":", "");
            return DatapathId.of(Long.parseUnsignedLong(hex, 16));
        } catch (NumberFormatException e) {
            throw new ConfigException("datapath id must be 16 hex digits (optionally 0x-prefixed), not '" + s + "'");
        }
    }
}
