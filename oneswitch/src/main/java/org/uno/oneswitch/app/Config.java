package org.uno.oneswitch.app;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.projectfloodlight.openflow.types.DatapathId;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.rest.RestServer;

/**
 * OneSwitch's validated configuration (see {@link ConfigLoader} for keys, flags and defaults).
 *
 * @param datapathId         the virtual switch's datapath id
 * @param controllers        controllers to connect to actively
 * @param listen             passive OpenFlow listener for controllers/ovs-ofctl, if any
 * @param southbound         listener the physical switches connect to
 * @param rest               REST server address, if any
 * @param platform           the platform description, if any
 * @param autoMap            kinds of declared ports mapped to virtual ports at start
 * @param tables             number of virtual flow tables
 * @param echoIntervalSec    idle time before an echo probe on any OpenFlow connection
 * @param maxBackoffMs       longest wait between attempts to reach a controller
 * @param logLevel           error, warn, info or debug
 * @param commandSockets     send commands over the bridges' management sockets when described
 * @param remapGraceMs       how long a remap keeps the old port's entries (its NF may still send)
 * @param maxRules           how many virtual rules OneSwitch holds at most (its memory is bounded by it)
 * @param stateFile          where the virtual switch's state is saved and restored, if anywhere
 * @param backlogLimit       bytes queued for a controller connection that does not read before it is closed
 * @param maxPassive         passive controller connections served at once
 * @param switchWaitMs       how long the start waits for the switches before controllers are served
 * @param restLimits         the REST server's timeouts, connection limit and token
 * @param southboundSsl      OneSwitch's key and certificate and the switches' CA, for an SSL southbound
 */
public record Config(DatapathId datapathId, List<InetSocketAddress> controllers, Optional<InetSocketAddress> listen,
                     InetSocketAddress southbound, Optional<InetSocketAddress> rest, Optional<Path> platform,
                     Set<PortSpec.Kind> autoMap, int tables, int echoIntervalSec, long maxBackoffMs, String logLevel,
                     boolean commandSockets, long remapGraceMs, int maxRules, Optional<Path> stateFile, long backlogLimit,
                     int maxPassive, long switchWaitMs, RestServer.Limits restLimits,
                     Optional<SslFiles> southboundSsl) {
    /** PEM files: OneSwitch's private key and certificate, and the CA that signs the switches' certificates. */
    public record SslFiles(Path privateKey, Path certificate, Path caCert) {
    }

    public Config {
        controllers = List.copyOf(controllers);
        autoMap = Set.copyOf(autoMap);
    }
}
