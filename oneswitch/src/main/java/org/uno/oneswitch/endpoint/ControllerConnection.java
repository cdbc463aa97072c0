package org.uno.oneswitch.endpoint;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;

import org.projectfloodlight.openflow.protocol.OFBadMatchCode;
import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFControllerRole;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFHello;
import org.projectfloodlight.openflow.protocol.OFHelloFailedCode;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFType;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.OFErrorCauseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.DeferredFlush;
import org.uno.oneswitch.codec.Hellos;
import org.uno.oneswitch.codec.Undecodable;
import org.uno.oneswitch.error.BadMatchException;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.error.HelloFailedException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.stats.Counts;

/**
 * One controller connection to the virtual switch (active or passive): version negotiation,
 * per-connection state (role, miss_send_len), error replies for anything refused or undecodable,
 * and liveness probing. Requests are handed to {@link RequestHandler}.
 *
 * <p>Invariants: nothing but HELLO is handled before negotiation; every refused or undecodable
 * request is answered with an OFPT_ERROR carrying its xid and first bytes; a failure on this
 * connection closes only this connection.
 *
 * <p>Backpressure (as Open vSwitch's ofconn limits the replies it queues per connection): requests
 * are taken only while the connection's backlog of unsent bytes is under the pause mark, no
 * statistics reply is being made (they cost a dump of the switches' tables; Open vSwitch answers a
 * connection's requests one at a time) and fewer than {@value #MAX_BARRIERS} barriers wait;
 * meanwhile the socket is not read, so a client
 * that does not read its replies cannot make OneSwitch queue more. A backlog past the limit closes
 * the connection, and so do the idle probes of a peer that neither reads nor writes.
 *
 * <p>Turns: the requests of one connection hold the event loop for at most {@link
 * Northbound.Limits#turnNanos} at a time. The rest are held, the socket is not read, and they are
 * taken up again in a task scheduled after the loop's next look at its sockets and timers. A bulk
 * install thus leaves room for another controller's echo, the switches' replies and PACKET_INs,
 * where one read of up to a megabyte of flow_mods would hold the loop for the whole of it.
 */
final class ControllerConnection extends SimpleChannelInboundHandler<Object> {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerConnection.class);
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    /** The type numbers OpenFlow 1.3 defines (0..29); anything above is an unknown type. */
    private static final int LAST_OF13_TYPE = 29;
    private static final int STATS_REQUEST_TYPE = 18;
    /** Undecodable messages in a row after which the peer is taken to be sending garbage. */
    private static final int MAX_UNDECODABLE_IN_A_ROW = 16;
    /** OpenFlow's default miss_send_len. */
    private static final int DEFAULT_MISS_SEND_LEN = 128;
    /** Barriers waiting for the switches (and the disk) past which no more requests are taken. */
    static final int MAX_BARRIERS = 64;

    private final Northbound north;
    private final boolean passive;
    private final Northbound.Limits limits;
    private Channel channel;
    private DeferredFlush out;
    private boolean negotiated;
    private OFControllerRole role = OFControllerRole.ROLE_EQUAL;
    private int missSendLen;
    private int idleProbes;
    private int undecodableInARow;
    private AsyncConfig async = AsyncConfig.DEFAULT;
    /** Requests read but not yet handled, in order: while the gate is closed or the connection is paused. */
    private final ArrayDeque<OFMessage> held = new ArrayDeque<>();
    private boolean waitingForGate;
    private boolean statsInProgress;
    private int barriersWaiting;
    private boolean overflowed;
    /** When this turn of handling requests ends ({@link System#nanoTime}), or 0 outside a turn. */
    private long turnEnds;
    /** A resume is scheduled: the turn ended with requests held, and only the resume takes them up. */
    private boolean resumeScheduled;

    ControllerConnection(Northbound north, boolean passive) {
        this.north = north;
        this.passive = passive;
        this.limits = north.limits();
        this.missSendLen = passive ? 0 : DEFAULT_MISS_SEND_LEN;
    }

    OFFactory factory() {
        return OF13;
    }

    boolean passive() {
        return passive;
    }

    /** Closes the connection, its queued messages sent first. */
    void close() {
        out.flushNow();
        channel.close();
    }

    boolean negotiated() {
        return negotiated;
    }

    OFControllerRole role() {
        return role;
    }

    void setRole(OFControllerRole role) {
        this.role = role;
    }

    AsyncConfig async() {
        return async;
    }

    void setAsync(AsyncConfig async) {
        this.async = async;
    }

    int missSendLen() {
        return missSendLen;
    }

    void setMissSendLen(int missSendLen) {
        this.missSendLen = missSendLen;
    }

    /** True when asynchronous messages go to this connection (Open vSwitch's rule for service connections). */
    boolean receivesAsync() {
        return negotiated && (!passive || missSendLen > 0);
    }

    /** False while the connection's backlog of unsent bytes is above the pause mark. */
    boolean writable() {
        return out.backlog() < limits.pauseBytes();
    }

    /**
     * Queues a message to the controller (flushed after the current task); past the backlog limit the
     * connection is closed instead, once.
     */
    void send(OFMessage msg) {
        if (!channel.isActive() || overflowed) {
            return;
        }
        if (out.backlog() > limits.backlogBytes()) {
            overflowed = true;
            LOG.warn("controller connection {} does not read: {} bytes queued for it (limit {}); closing",
                    channel.remoteAddress(), out.backlog(), limits.backlogBytes());
            channel.close();
            return;
        }
        out.write(msg);
    }

    /**
     * Holds further requests while the statistics {@code reply} is being made; the caller sends it
     * when it completes (before the requests held meanwhile are taken up).
     */
    <T> CompletableFuture<T> statsReply(CompletableFuture<T> reply) {
        statsInProgress = true;
        reply.whenComplete((v, t) -> {
            statsInProgress = false;
            channel.eventLoop().execute(this::release);
        });
        return reply;
    }

    /** Counts the barrier {@code reply} among those waiting until it completes. */
    <T> CompletableFuture<T> barrierReply(CompletableFuture<T> reply) {
        barriersWaiting++;
        reply.whenComplete((v, t) -> {
            barriersWaiting--;
            channel.eventLoop().execute(this::release);
        });
        return reply;
    }

    void sendAll(List<? extends OFMessage> msgs) {
        msgs.forEach(this::send);
    }

    /** Answers {@code request} with the error {@code e}. */
    void refuse(OpenFlowException e, OFMessage request) {
        ByteBuf buf = Unpooled.buffer();
        request.writeTo(buf);
        byte[] head = ByteBufUtil.getBytes(buf, 0, Math.min(64, buf.readableBytes()));
        refuse(e, request.getXid(), head);
    }

    private void refuse(OpenFlowException e, long xid, byte[] head) {
        log("refused request xid={} from {}: {}", xid, channel.remoteAddress(), e.describe());
        send(e.toErrorMsg(OF13, xid, OFErrorCauseData.of(head, OFVersion.OF_13)));
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        out = new DeferredFlush(channel, this::release);
        if (passive && north.controllers().passive() >= limits.maxPassive()) {
            LOG.warn("refusing controller connection from {}: {} passive connections already open",
                    channel.remoteAddress(), limits.maxPassive());
            channel.close();
            return;
        }
        north.controllers().add(this);
        if (!north.ready().isDone()) {
            // OneSwitch is still waiting for its switches: the handshake (and every request) waits too.
            channel.config().setAutoRead(false);
            north.ready().thenRun(() -> channel.eventLoop().execute(this::begin));
        } else {
            begin();
        }
        log("controller connection {} {}", passive ? "from" : "to", channel.remoteAddress());
    }

    private void begin() {
        if (channel.isActive()) {
            out.write(Hellos.ours(OF13));
            channel.config().setAutoRead(true);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!north.controllers().remove(this)) {
            return;
        }
        log("controller connection {} {} closed", passive ? "from" : "to", channel.remoteAddress());
    }

    /** Active connections are logged at info; passive ones (ovs-ofctl runs) only at debug. */
    private void log(String format, Object... args) {
        if (passive) {
            LOG.debug(format, args);
        } else {
            LOG.info(format, args);
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        idleProbes = 0;
        if (msg instanceof Undecodable u) {
            onUndecodable(u);
            return;
        }
        undecodableInARow = 0;
        OFMessage m = (OFMessage) msg;
        if (!negotiated) {
            onFirstMessage(m);
            return;
        }
        if (!held.isEmpty() || paused() || turnOver()) {
            hold(m);
            return;
        }
        process(m);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!resumeScheduled) {
            turnEnds = 0;
        }
        ctx.fireChannelReadComplete();
    }

    /**
     * Whether this turn has used its time (the first call of a turn begins it); when it has, the held
     * requests are taken up by a resume scheduled for after the loop's next look at its sockets.
     */
    private boolean turnOver() {
        long now = System.nanoTime();
        if (turnEnds == 0) {
            turnEnds = now + limits.turnNanos();
            return false;
        }
        if (now - turnEnds < 0) {
            return false;
        }
        if (!resumeScheduled) {
            resumeScheduled = true;
            // A scheduled task, not execute(): the loop runs what execute() queues before it reads its
            // sockets again, and a turn that queued its own continuation would keep them waiting.
            channel.eventLoop().schedule(this::resume, 0, TimeUnit.NANOSECONDS);
        }
        return true;
    }

    private void resume() {
        resumeScheduled = false;
        turnEnds = 0;
        release();
    }

    /** Requests wait while a remap is applied, while the peer has not taken its replies, while many are made. */
    private boolean paused() {
        return !north.requests().gate().isOpen() || !writable() || statsInProgress || barriersWaiting >= MAX_BARRIERS;
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelWritabilityChanged();
    }

    private void process(OFMessage m) {
        try {
            if (m.getVersion() != OFVersion.OF_13) {
                throw new BadRequestException(OFBadRequestCode.BAD_VERSION, "version " + m.getVersion()
                        + " after negotiating OpenFlow 1.3");
            }
            north.requests().handle(this, m);
        } catch (OpenFlowException e) {
            refuse(e, m);
        } catch (RuntimeException e) {
            // A defect in a handler must cost this one request, not the connection (Open vSwitch answers
            // every request it cannot complete with an error and keeps the channel).
            LOG.error("request xid={} ({}) from {} failed", m.getXid(), m.getType(), channel.remoteAddress(), e);
            refuse(new BadRequestException(OFBadRequestCode.EPERM, "internal error: " + e), m);
        }
    }

    /**
     * Keeps {@code m} and stops reading until the connection is no longer paused ({@link #release}
     * runs when the gate opens, the backlog shrinks or a reply completes): order is kept. What is
     * held is bounded by what one read had decoded.
     */
    private void hold(OFMessage m) {
        channel.config().setAutoRead(false);
        held.add(m);
        waitForGate();
    }

    private void waitForGate() {
        if (!waitingForGate && !north.requests().gate().isOpen()) {
            waitingForGate = true;
            north.requests().gate().whenOpen(() -> {
                waitingForGate = false;
                release();
            });
        }
    }

    /** Handles the held requests while the connection is not paused; reads again once none is left. */
    private void release() {
        if (!channel.isActive()) {
            held.clear();
            return;
        }
        if (resumeScheduled) {
            return;  // this turn is over: the resume takes the held requests up
        }
        while (!held.isEmpty()) {
            if (paused()) {
                waitForGate();
                turnEnds = 0;
                return;
            }
            if (turnOver()) {
                return;
            }
            process(held.poll());
        }
        turnEnds = 0;
        if (!channel.config().isAutoRead() && !paused()) {
            channel.config().setAutoRead(true);
        }
    }

    private void onFirstMessage(OFMessage m) {
        if (m.getType() != OFType.HELLO) {
            LOG.warn("controller at {} sent {} before HELLO; closing", channel.remoteAddress(), m.getType());
            channel.close();
        } else if (!Hellos.accepts13((OFHello) m)) {
            refuse(new HelloFailedException(OFHelloFailedCode.INCOMPATIBLE, "OneSwitch speaks OpenFlow 1.3 only"),
                    m.getXid(), new byte[0]);
            channel.eventLoop().execute(channel::close);
        } else {
            negotiated = true;
        }
    }

    private void onUndecodable(Undecodable u) {
        if (negotiated && u.badMatchField()) {
            // A well-formed FLOW_MOD matching on a field OneSwitch does not support: an ordinary refusal.
            undecodableInARow = 0;
            refuse(new BadMatchException(OFBadMatchCode.BAD_FIELD, u.reason()), u.xid(), u.head());
            return;
        }
        if (!negotiated || u.fatal() || ++undecodableInARow > MAX_UNDECODABLE_IN_A_ROW) {
            LOG.warn("closing controller connection {}: {}", channel.remoteAddress(), u);
            if (!negotiated) {
                refuse(new HelloFailedException(OFHelloFailedCode.INCOMPATIBLE, u.reason()), u.xid(), u.head());
            } else {
                refuse(new BadRequestException(OFBadRequestCode.BAD_LEN, u.reason()), u.xid(), u.head());
            }
            channel.eventLoop().execute(channel::close);
            return;
        }
        OFBadRequestCode code = u.version() != OFVersion.OF_13.getWireVersion() ? OFBadRequestCode.BAD_VERSION
                : u.type() > LAST_OF13_TYPE ? OFBadRequestCode.BAD_TYPE
                : u.type() == STATS_REQUEST_TYPE ? OFBadRequestCode.BAD_STAT : OFBadRequestCode.BAD_LEN;
        refuse(new BadRequestException(code, u.reason()), u.xid(), u.head());
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (!channel.config().isAutoRead() && writable()) {
                return;  // not silent: OneSwitch holds its requests (a remap, replies being made)
            }
            if (++idleProbes > limits.maxIdleProbes()) {
                LOG.warn("controller at {} silent too long; closing", channel.remoteAddress());
                ctx.close();
            } else if (negotiated) {
                send(OF13.buildEchoRequest().setXid(0).setData(new byte[0]).build());
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!ctx.channel().isActive()) {
            return;  // writes that were queued when OneSwitch closed the connection
        }
        LOG.warn("controller connection {} failed: {}", channel == null ? "?" : channel.remoteAddress(),
                cause.toString());
        ctx.close();
    }
}
