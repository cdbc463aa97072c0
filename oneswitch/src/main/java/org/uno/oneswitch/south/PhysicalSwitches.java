package org.uno.oneswitch.south;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPortDesc;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.OfChannels;
import org.uno.oneswitch.core.PhysicalEvents;
import org.uno.oneswitch.core.PhysicalNetwork;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;

/**
 * The physical switches connected to OneSwitch's southbound listener, by platform switch id.
 *
 * <p>Invariant: at most one connection per switch (a new connection from the same datapath
 * replaces the old one); a switch counts as connected only after its handshake and flow dump,
 * so everything the core sends to it lands after reconciliation.
 */
public final class PhysicalSwitches implements PhysicalNetwork {
    private static final Logger LOG = LoggerFactory.getLogger(PhysicalSwitches.class);
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);

    private final Topology topology;
    private final Map<String, SwitchConnection> connections = new HashMap<>();
    private PhysicalEvents events;
    private Channel listener;

    public PhysicalSwitches(Topology topology) {
        this.topology = topology;
    }

    /** Sets who hears about connections, ports and packet-ins (the virtual switch). */
    public void setEvents(PhysicalEvents events) {
        this.events = events;
    }

    PhysicalEvents events() {
        return events;
    }

    Optional<SwitchSpec> identify(DatapathId dpid) {
        return topology.byDatapathId(dpid);
    }

    void attached(String switchId, SwitchConnection conn) {
        SwitchConnection old = connections.put(switchId, conn);
        if (old != null && old != conn) {
            LOG.warn("switch {} connected again; closing its previous connection", switchId);
            old.close();
        }
    }

    void detached(String switchId, SwitchConnection conn) {
        if (connections.get(switchId) == conn) {
            connections.remove(switchId);
            if (conn.ready()) {
                events.switchDisconnected(switchId);
            }
        }
    }

    /** Listens on {@code address} for physical switches; returns the bound address. */
    public InetSocketAddress listen(EventLoopGroup group, InetSocketAddress address, int idleSeconds, int maxIdleProbes)
            throws InterruptedException {
        Channel ch = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(OfChannels.initializer(idleSeconds, () -> new SwitchConnection(this, maxIdleProbes)))
                .bind(address).sync().channel();
        listener = ch;
        LOG.info("OpenFlow listener for physical switches on {}", ch.localAddress());
        return (InetSocketAddress) ch.localAddress();
    }

    /** Closes the listener and every switch connection (the switches keep their flows: fail-secure). */
    public void stop() {
        if (listener != null) {
            listener.close();
        }
        new ArrayList<>(connections.values()).forEach(SwitchConnection::close);
    }

    /** The ids of the switches connected now. */
    public List<String> connectedIds() {
        return connections.keySet().stream().filter(this::connected).sorted().toList();
    }

    @Override
    public OFFactory factory() {
        return OF13;
    }

    @Override
    public boolean connected(String switchId) {
        SwitchConnection c = connections.get(switchId);
        return c != null && c.ready();
    }

    @Override
    public void send(String switchId, OFMessage msg, ErrorListener onError) {
        SwitchConnection c = connections.get(switchId);
        if (c != null && c.ready()) {
            c.send(msg, onError);
        }
    }

    @Override
    public CompletableFuture<List<OFStatsReply>> request(String switchId, OFStatsRequest<?> req) {
        SwitchConnection c = connections.get(switchId);
        if (c == null || !c.ready()) {
            return CompletableFuture.failedFuture(new IllegalStateException("switch " + switchId + " not connected"));
        }
        return c.request(req);
    }

    @Override
    public CompletableFuture<Void> barrier() {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (SwitchConnection c : connections.values()) {
            if (c.ready()) {
                all.add(c.barrier());
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    public Map<OFPort, OFPortDesc> ports(String switchId) {
        SwitchConnection c = connections.get(switchId);
        return c == null ? Map.of() : c.ports();
    }
}
