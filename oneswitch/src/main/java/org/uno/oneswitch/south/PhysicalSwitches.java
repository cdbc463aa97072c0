package org.uno.oneswitch.south;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowStatsReply;
import org.projectfloodlight.openflow.protocol.OFGroupStatsReply;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMeterModCommand;
import org.projectfloodlight.openflow.protocol.OFMeterStatsReply;
import org.projectfloodlight.openflow.protocol.OFPortStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.protocol.OFTableStatsReply;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.MeterModCodec;
import org.uno.oneswitch.codec.OfChannels;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.codec.StatsCodec;
import org.uno.oneswitch.codec.Transport;
import org.uno.oneswitch.core.PhysicalEvents;
import org.uno.oneswitch.core.PhysicalNetwork;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.PortModRequest;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.plan.PlanChange;
import org.uno.oneswitch.stats.EntryCounters;
import org.uno.oneswitch.stats.GroupCounters;
import org.uno.oneswitch.stats.MeterCounters;
import org.uno.oneswitch.stats.PortCounters;
import org.uno.oneswitch.stats.PortDescription;
import org.uno.oneswitch.stats.TableCounters;
import org.uno.oneswitch.translate.PhysicalPlan;

/**
 * The physical switches: their controller connections to OneSwitch's southbound listener, by
 * platform switch id, and the command channels to their management sockets.
 *
 * <p>Invariants: at most one controller connection per switch (a new one from the same datapath
 * replaces the old); a switch counts as connected only after its handshake and flow dump, so
 * everything the core sends lands after reconciliation; commands use the command channel when it
 * is open, else the controller connection, and a barrier covers both.
 */
public final class PhysicalSwitches implements PhysicalNetwork {
    private static final Logger LOG = LoggerFactory.getLogger(PhysicalSwitches.class);
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    private static final long COMMAND_RETRY_MS = 1000;

    private final Topology topology;
    private final Map<String, SwitchConnection> connections = new HashMap<>();
    private final Map<String, CommandChannel> commandChannels = new HashMap<>();
    private final Map<String, DatapathPurge> purges = new HashMap<>();
    private EventLoopGroup group;
    private PhysicalEvents events;
    private Channel listener;
    private Optional<SouthboundTls> tls = Optional.empty();
    private volatile boolean stopped;

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

    /** The southbound's SSL, if it has it: a switch must then prove who it is with its certificate. */
    Optional<SouthboundTls> tls() {
        return tls;
    }

    /**
     * Listens on {@code address} for physical switches, over SSL with {@code tls}; returns the bound
     * address.
     */
    public InetSocketAddress listen(EventLoopGroup group, Transport transport, InetSocketAddress address,
                                    Optional<SouthboundTls> tls, int idleSeconds, int maxIdleProbes)
            throws InterruptedException {
        this.tls = tls;
        Channel ch = new ServerBootstrap().group(group).channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(OfChannels.initializer(idleSeconds,
                        tls.map(t -> (Channel c) -> t.newHandler(c.alloc())),
                        () -> new SwitchConnection(this, maxIdleProbes)))
                .bind(address).sync().channel();
        listener = ch;
        if (tls.isPresent()) {
            LOG.info("OpenFlow SSL listener for physical switches on {}", ch.localAddress());
        } else {
            LOG.warn("OpenFlow listener for physical switches on {} without SSL: any process that can reach it can "
                    + "claim a switch's datapath id", ch.localAddress());
        }
        return (InetSocketAddress) ch.localAddress();
    }

    /**
     * Reaches, over {@code tls}, the daemon of every sNIC that is a machine of its own, to purge that
     * sNIC's cached datapath flows (its control socket is out of OneSwitch's reach).
     */
    public void reachSnicDaemons(EventLoopGroup group, Transport transport, SouthboundTls tls) {
        for (SwitchSpec s : topology.switches()) {
            s.snicDaemon().ifPresent(address -> purges.put(s.id(),
                    new SnicDaemonChannel(s.id(), address, group, transport, tls)));
        }
    }

    /** Keeps a command channel open to every switch whose description names a management socket. */
    public void openCommandChannels(EventLoopGroup group, Transport transport, int idleSeconds, int maxIdleProbes) {
        this.group = group;
        for (SwitchSpec s : topology.switches()) {
            s.controlSocket().ifPresent(path -> purges.put(s.id(), new Appctl(path, group, transport)));
            s.managementSocket().ifPresent(path -> connectCommand(group, transport, s.id(), path, idleSeconds,
                    maxIdleProbes));
        }
    }

    private void connectCommand(EventLoopGroup group, Transport transport, String switchId, String path,
                                int idleSeconds, int maxIdleProbes) {
        if (stopped) {
            return;
        }
        new Bootstrap().group(group).channel(transport.domainSocketChannel())
                .handler(OfChannels.initializer(idleSeconds, () -> new CommandChannel(this, switchId, maxIdleProbes)))
                .connect(new DomainSocketAddress(path)).addListener((ChannelFuture f) -> {
                    Runnable retry = () -> group.schedule(() -> connectCommand(group, transport, switchId, path,
                            idleSeconds, maxIdleProbes), COMMAND_RETRY_MS, TimeUnit.MILLISECONDS);
                    if (f.isSuccess()) {
                        f.channel().closeFuture().addListener(c -> retry.run());
                    } else {
                        LOG.debug("management socket of {} not reachable: {}", switchId, f.cause().toString());
                        retry.run();
                    }
                });
    }

    /** Closes the listener and every connection (the switches keep their flows: fail-secure). */
    public void stop() {
        stopped = true;
        if (listener != null) {
            listener.close();
        }
        new ArrayList<>(connections.values()).forEach(SwitchChannel::close);
        new ArrayList<>(commandChannels.values()).forEach(SwitchChannel::close);
        purges.values().forEach(DatapathPurge::close);
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

    void commandChannelUp(String switchId, CommandChannel ch) {
        CommandChannel old = commandChannels.put(switchId, ch);
        if (old != null && old != ch) {
            old.close();
        }
    }

    void commandChannelDown(String switchId, CommandChannel ch) {
        commandChannels.remove(switchId, ch);
        SwitchConnection conn = connections.get(switchId);
        if (conn != null) {
            conn.commandChannelLost(ch.tracker);
        }
    }

    /** The tracker of {@code switchId}'s open command channel, if any. */
    Optional<RequestTracker> commandChannel(String switchId) {
        CommandChannel c = commandChannels.get(switchId);
        return c != null && c.ready() ? Optional.of(c.tracker) : Optional.empty();
    }

    private RequestTracker commands(String switchId) {
        SwitchConnection c = connections.get(switchId);
        return c != null && c.ready() ? c.commands() : null;
    }

    @Override
    public boolean connected(String switchId) {
        SwitchConnection c = connections.get(switchId);
        return c != null && c.ready();
    }

    @Override
    public void apply(PlanChange change, boolean resetCounts, ErrorListener onError) {
        send(change.switchId(), PhysicalMessages.message(change, resetCounts, OF13), onError);
    }

    @Override
    public void meter(String switchId, OFMeterModCommand command, VirtualMeter meter, ErrorListener onError) {
        send(switchId, MeterModCodec.message(OF13, command, meter), onError);
    }

    @Override
    public void portMod(String switchId, PortModRequest change, ErrorListener onError) {
        send(switchId, PhysicalMessages.portMod(change, OF13), onError);
    }

    @Override
    public void packetOut(String switchId, OFPort inPort, List<Action> actions, byte[] data, ErrorListener onError) {
        send(switchId, PhysicalMessages.packetOut(inPort, actions, data, OF13), onError);
    }

    private void send(String switchId, OFMessage.Builder msg, ErrorListener onError) {
        RequestTracker t = commands(switchId);
        if (t != null) {
            t.send(msg, onError);
        }
    }

    @Override
    public CompletableFuture<List<EntryCounters>> entryCounters(String switchId, int table, U64 cookie, U64 mask) {
        return counters(switchId, OF13.buildFlowStatsRequest().setTableId(table < 0 ? TableId.ALL : TableId.of(table))
                .setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).setCookie(cookie).setCookieMask(mask)
                .setMatch(OF13.buildMatch().build()).build(), OFFlowStatsReply::getEntries, StatsCodec::entry);
    }

    @Override
    public CompletableFuture<List<PortCounters>> portCounters(String switchId, OFPort port) {
        return counters(switchId, OF13.buildPortStatsRequest().setPortNo(port).build(), OFPortStatsReply::getEntries,
                StatsCodec::port);
    }

    @Override
    public CompletableFuture<List<TableCounters>> tableCounters(String switchId) {
        return counters(switchId, OF13.buildTableStatsRequest().build(), OFTableStatsReply::getEntries,
                StatsCodec::table);
    }

    @Override
    public CompletableFuture<List<GroupCounters>> groupCounters(String switchId, OFGroup group) {
        return counters(switchId, OF13.buildGroupStatsRequest().setGroup(group).build(), OFGroupStatsReply::getEntries,
                StatsCodec::group);
    }

    @Override
    public CompletableFuture<List<MeterCounters>> meterCounters(String switchId, long meter) {
        return counters(switchId, OF13.buildMeterStatsRequest().setMeterId(meter).build(),
                OFMeterStatsReply::getEntries, StatsCodec::meter);
    }

    /** The entries of every part of the reply to {@code req}, decoded. */
    @SuppressWarnings("unchecked")
    private <R extends OFStatsReply, E, T> CompletableFuture<List<T>> counters(String switchId, OFStatsRequest<?> req,
            Function<R, List<E>> entries, Function<E, T> decode) {
        return request(switchId, req).thenApply(replies -> replies.stream()
                .flatMap(r -> entries.apply((R) r).stream()).map(decode).toList());
    }

    /** Sends a multipart request and completes with every reply part (exceptionally on error or disconnect). */
    private CompletableFuture<List<OFStatsReply>> request(String switchId, OFStatsRequest<?> req) {
        RequestTracker t = commands(switchId);
        if (t == null) {
            return CompletableFuture.failedFuture(new IllegalStateException("switch " + switchId + " not connected"));
        }
        return t.request(req);
    }

    @Override
    public CompletableFuture<Void> barrier() {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (Map.Entry<String, SwitchConnection> e : connections.entrySet()) {
            if (e.getValue().ready()) {
                all.add(e.getValue().tracker.barrier());
                all.add(e.getValue().commands().barrier());
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    @Override
    public CompletableFuture<Void> settle(Collection<String> switches) {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (String s : switches) {
            RequestTracker t = commands(s);
            if (t != null) {
                DatapathPurge purge = purges.get(s);
                all.add(purge == null ? t.barrier() : revalidated(s, t, purge));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /**
     * Completes when {@code switchId} has answered a barrier sent after everything sent to it so far
     * and its daemon holds no datapath flow translated before those changes.
     *
     * <p>A datapath flow keeps the actions it was translated with until a revalidation round
     * re-translates it, and Open vSwitch starts rounds at least 5 ms apart (waiting for a round
     * that started after the changes cost about 10 ms). Instead, once the barrier is answered, the
     * revalidator threads are paused (the daemon waits for a running round to end), every
     * datapath flow is purged, and the revalidators resume: the next packet of each flow is
     * translated with the new tables. The pause matters: a purge skips a flow whose key a
     * revalidator holds at that moment, and a round that started before the changes would keep
     * it. Upcalls of the userspace datapath's non-PMD ports run on the daemon's main thread, as
     * do these commands, so no flow translated before the changes is installed after the purge.
     * The three commands go in one write, so the daemon resumes its revalidators even if
     * OneSwitch dies right after sending them; on a sNIC that is a machine of its own its sNIC
     * daemon sends them so, when OneSwitch asks it (a switch with neither gets the barrier only).
     * The cost is one upcall per datapath flow of the switch (see DESIGN.md, "Remap").
     */
    private CompletableFuture<Void> revalidated(String switchId, RequestTracker t, DatapathPurge purge) {
        return t.barrier().thenCompose(v -> purge.purge()).exceptionally(e -> {
            LOG.warn("purging the datapath flows of {} failed: {}", switchId, e.getMessage());
            return null;
        });
    }

    @Override
    public Map<OFPort, PortDescription> ports(String switchId) {
        SwitchConnection c = connections.get(switchId);
        return c == null ? Map.of() : c.ports();
    }
}
