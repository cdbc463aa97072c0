package org.uno.oneswitch.south;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;

import org.projectfloodlight.openflow.protocol.OFBarrierReply;
import org.projectfloodlight.openflow.protocol.OFEchoRequest;
import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFeaturesReply;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFFlowStatsReply;
import org.projectfloodlight.openflow.protocol.OFHello;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPortDesc;
import org.projectfloodlight.openflow.protocol.OFPortDescStatsReply;
import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.projectfloodlight.openflow.protocol.OFPortStatus;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReplyFlags;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.protocol.OFType;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.DeferredFlush;
import org.uno.oneswitch.codec.Hellos;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.codec.Undecodable;
import org.uno.oneswitch.core.PhysicalNetwork;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.translate.InstalledEntry;

/**
 * OneSwitch's OpenFlow 1.3 controller connection to one physical switch: handshake (HELLO,
 * FEATURES to learn the datapath id, SET_CONFIG, PORT_DESC, a flow dump for reconciliation),
 * requests with replies matched by xid, barriers, errors routed to whoever sent the failing
 * message, and the switch's asynchronous messages.
 *
 * <p>Invariants: xids increase; a barrier is sent only when something was sent since the last
 * one ({@code dirty}), and every pending reply fails when the connection closes.
 */
final class SwitchConnection extends SimpleChannelInboundHandler<Object> {
    private static final Logger LOG = LoggerFactory.getLogger(SwitchConnection.class);
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    /** Error listeners kept for messages not yet covered by a barrier reply. */
    private static final int MAX_ERROR_LISTENERS = 1 << 20;

    private final PhysicalSwitches registry;
    private final int maxIdleProbes;
    private Channel channel;
    private DeferredFlush out;
    private SwitchSpec spec;
    private boolean ready;
    private long nextXid = 1;
    private int idleProbes;
    private boolean dirty;
    private CompletableFuture<Void> lastBarrier = CompletableFuture.completedFuture(null);
    private final Map<Long, Pending> pending = new HashMap<>();
    private final LinkedHashMap<Long, PhysicalNetwork.ErrorListener> errorListeners = new LinkedHashMap<>();
    private final Map<OFPort, OFPortDesc> ports = new LinkedHashMap<>();

    /** A request waiting for its reply (multipart parts accumulate). */
    private static final class Pending {
        final CompletableFuture<List<OFStatsReply>> future = new CompletableFuture<>();
        final List<OFStatsReply> parts = new ArrayList<>();
        final CompletableFuture<Void> barrier;

        Pending(CompletableFuture<Void> barrier) {
            this.barrier = barrier;
        }
    }

    SwitchConnection(PhysicalSwitches registry, int maxIdleProbes) {
        this.registry = registry;
        this.maxIdleProbes = maxIdleProbes;
    }

    boolean ready() {
        return ready;
    }

    Map<OFPort, OFPortDesc> ports() {
        return Collections.unmodifiableMap(ports);
    }

    void close() {
        channel.close();
    }

    /** Sends {@code msg} with a fresh xid; an error the switch returns for it goes to {@code onError}. */
    void send(OFMessage msg, PhysicalNetwork.ErrorListener onError) {
        long xid = write(msg);
        if (onError != null) {
            errorListeners.put(xid, onError);
            if (errorListeners.size() > MAX_ERROR_LISTENERS) {
                Iterator<Long> it = errorListeners.keySet().iterator();
                it.next();
                it.remove();
            }
        }
    }

    CompletableFuture<List<OFStatsReply>> request(OFStatsRequest<?> req) {
        Pending p = new Pending(null);
        pending.put(write(req), p);
        return p.future;
    }

    /** Completes when the switch has processed everything sent to it so far. */
    CompletableFuture<Void> barrier() {
        if (dirty) {
            dirty = false;
            CompletableFuture<Void> b = new CompletableFuture<>();
            long xid = nextXid++;
            out.write(OF13.buildBarrierRequest().setXid(xid).build());
            pending.put(xid, new Pending(b));
            lastBarrier = b;
        }
        return lastBarrier;
    }

    private long write(OFMessage msg) {
        long xid = nextXid++;
        out.write(msg.createBuilder().setXid(xid).build());
        dirty = true;
        return xid;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        out = new DeferredFlush(channel);
        out.write(Hellos.ours(OF13));
        LOG.debug("physical switch connecting from {}", channel.remoteAddress());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        for (Pending p : pending.values()) {
            if (p.barrier != null) {
                p.barrier.complete(null);
            } else {
                p.future.completeExceptionally(new IllegalStateException("switch disconnected"));
            }
        }
        pending.clear();
        if (spec != null) {
            registry.detached(spec.id(), this);
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        idleProbes = 0;
        if (msg instanceof Undecodable u) {
            LOG.warn("closing connection of switch {}: {}", spec == null ? channel.remoteAddress() : spec.id(), u);
            ctx.close();
            return;
        }
        OFMessage m = (OFMessage) msg;
        if (m.getType() == OFType.HELLO) {
            onHello((OFHello) m);
        } else if (m.getVersion() != OFVersion.OF_13) {
            LOG.warn("switch sent OpenFlow {} after negotiating 1.3; closing", m.getVersion());
            ctx.close();
        } else {
            dispatch(m);
        }
    }

    private void onHello(OFHello hello) {
        if (!Hellos.accepts13(hello)) {
            LOG.warn("switch at {} does not speak OpenFlow 1.3; closing", channel.remoteAddress());
            channel.close();
            return;
        }
        long xid = nextXid++;
        pending.put(xid, new Pending(null));
        out.write(OF13.buildFeaturesRequest().setXid(xid).build());
    }

    private void dispatch(OFMessage m) {
        switch (m.getType()) {
            case ECHO_REQUEST -> out.write(OF13.buildEchoReply().setXid(m.getXid())
                    .setData(((OFEchoRequest) m).getData()).build());
            case FEATURES_REPLY -> onFeatures((OFFeaturesReply) m);
            case STATS_REPLY -> onStatsReply((OFStatsReply) m);
            case BARRIER_REPLY -> onBarrierReply((OFBarrierReply) m);
            case ERROR -> onError((OFErrorMsg) m);
            case PACKET_IN -> {
                if (ready) {
                    registry.events().packetIn(spec.id(), (OFPacketIn) m);
                }
            }
            case PORT_STATUS -> onPortStatus((OFPortStatus) m);
            case ECHO_REPLY, FLOW_REMOVED -> {
            }
            default -> LOG.debug("switch {} sent unexpected {}", spec == null ? "?" : spec.id(), m.getType());
        }
    }

    private void onFeatures(OFFeaturesReply f) {
        pending.remove(f.getXid());
        if (spec != null) {
            return;
        }
        spec = registry.identify(f.getDatapathId()).orElse(null);
        if (spec == null) {
            LOG.warn("datapath {} at {} is not in the platform description; closing", f.getDatapathId(),
                    channel.remoteAddress());
            channel.close();
            return;
        }
        LOG.info("physical switch {} (datapath {}) handshaking", spec.id(), f.getDatapathId());
        registry.attached(spec.id(), this);
        out.write(OF13.buildSetConfig().setXid(nextXid++).setMissSendLen(0xffff).build());
        request(OF13.buildPortDescStatsRequest().build()).thenCompose(replies -> {
            ports.clear();
            for (OFStatsReply r : replies) {
                ((OFPortDescStatsReply) r).getEntries().forEach(d -> ports.put(d.getPortNo(), d));
            }
            return request(OF13.buildFlowStatsRequest().setTableId(TableId.ALL).setOutPort(OFPort.ANY)
                    .setOutGroup(OFGroup.ANY).setCookie(U64.ZERO).setCookieMask(U64.ZERO)
                    .setMatch(OF13.buildMatch().build()).build());
        }).whenComplete((replies, t) -> {
            if (t != null || !channel.isActive()) {
                return;
            }
            List<InstalledEntry> entries = new ArrayList<>();
            for (OFStatsReply r : replies) {
                for (OFFlowStatsEntry e : ((OFFlowStatsReply) r).getEntries()) {
                    entries.add(PhysicalMessages.installed(spec.id(), e));
                }
            }
            ready = true;
            registry.events().switchConnected(spec.id(), entries);
        });
    }

    private void onStatsReply(OFStatsReply r) {
        Pending p = pending.get(r.getXid());
        if (p == null) {
            return;
        }
        p.parts.add(r);
        if (!r.getFlags().contains(OFStatsReplyFlags.REPLY_MORE)) {
            pending.remove(r.getXid());
            p.future.complete(p.parts);
        }
    }

    private void onBarrierReply(OFBarrierReply r) {
        Pending p = pending.remove(r.getXid());
        Iterator<Long> it = errorListeners.keySet().iterator();
        while (it.hasNext() && it.next() < r.getXid()) {
            it.remove();
        }
        if (p != null && p.barrier != null) {
            p.barrier.complete(null);
        }
    }

    private void onError(OFErrorMsg e) {
        Pending p = pending.remove(e.getXid());
        if (p != null) {
            if (p.barrier != null) {
                p.barrier.complete(null);
            } else {
                p.future.completeExceptionally(new IllegalStateException("switch refused request: " + e));
            }
            return;
        }
        PhysicalNetwork.ErrorListener l = errorListeners.remove(e.getXid());
        if (l != null) {
            l.onError(spec == null ? "?" : spec.id(), e);
        } else {
            LOG.warn("switch {} sent error {}", spec == null ? "?" : spec.id(), e);
        }
    }

    private void onPortStatus(OFPortStatus s) {
        OFPortDesc d = s.getDesc();
        if (s.getReason() == OFPortReason.DELETE) {
            ports.remove(d.getPortNo());
        } else {
            ports.put(d.getPortNo(), d);
        }
        if (ready) {
            registry.events().portsChanged(spec.id());
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (++idleProbes > maxIdleProbes) {
                LOG.warn("switch {} silent too long; closing", spec == null ? channel.remoteAddress() : spec.id());
                ctx.close();
            } else {
                out.write(OF13.buildEchoRequest().setXid(nextXid++).setData(new byte[0]).build());
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.warn("connection to switch {} failed: {}", spec == null ? "?" : spec.id(), cause.toString());
        ctx.close();
    }
}
