package org.uno.oneswitch.app;

import java.net.InetSocketAddress;

/**
 * Open vSwitch style connection targets: "tcp:IP:PORT" for an active connection, "ptcp:PORT[:IP]"
 * for a listener (IP defaults to 127.0.0.1), "IP:PORT" for the REST server.
 */
final class Address {
    private Address() {
    }

    /** An active target "tcp:IP:PORT". */
    static InetSocketAddress active(String spec) throws ConfigException {
        if (!spec.startsWith("tcp:")) {
            throw new ConfigException("controller target must look like tcp:IP:PORT, not '" + spec + "'");
        }
        return hostPort(spec.substring(4), spec);
    }

    /** A passive target "ptcp:PORT[:IP]". */
    static InetSocketAddress passive(String spec) throws ConfigException {
        if (!spec.startsWith("ptcp:")) {
            throw new ConfigException("listener must look like ptcp:PORT[:IP], not '" + spec + "'");
        }
        return listener(spec.substring(5), spec);
    }

    /** A passive target "ptcp:PORT[:IP]" or, with SSL, "pssl:PORT[:IP]". */
    static InetSocketAddress passiveMaybeSsl(String spec) throws ConfigException {
        if (!spec.startsWith("ptcp:") && !spec.startsWith("pssl:")) {
            throw new ConfigException("listener must look like ptcp:PORT[:IP] or pssl:PORT[:IP], not '" + spec + "'");
        }
        return listener(spec.substring(5), spec);
    }

    private static InetSocketAddress listener(String rest, String spec) throws ConfigException {
        int colon = rest.indexOf(':');
        String port = colon < 0 ? rest : rest.substring(0, colon);
        String ip = colon < 0 ? "127.0.0.1" : rest.substring(colon + 1);
        return new InetSocketAddress(ip, port(port, spec));
    }

    /** "IP:PORT". */
    static InetSocketAddress hostPort(String s, String spec) throws ConfigException {
        int colon = s.lastIndexOf(':');
        if (colon <= 0) {
            throw new ConfigException("address must look like IP:PORT, not '" + spec + "'");
        }
        return new InetSocketAddress(s.substring(0, colon), port(s.substring(colon + 1), spec));
    }

    private static int port(String s, String spec) throws ConfigException {
        try {
            int p = Integer.parseInt(s);
            if (p >= 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ConfigException("bad port number in '" + spec + "'");
    }
}
