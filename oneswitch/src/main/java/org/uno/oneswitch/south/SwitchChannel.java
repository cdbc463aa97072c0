package org.uno.oneswitch.south;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;

import org.projectfloodlight.openflow.protocol.OFEchoRequest;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFHello;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFType;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.DeferredFlush;
import org.uno.oneswitch.codec.Hellos;
import org.uno.oneswitch.codec.Undecodable;
import org.uno.oneswitch.log.RateLimitedLog;

/**
 * What every OpenFlow 1.3 connection between OneSwitch and a physical switch does: HELLO, echo,
 * idle probing, request tracking. A message that does not decode while the stream's framing is
 * intact costs only itself (a request waiting for it fails); broken framing closes the connection,
 * since nothing after it can be read. Subclasses say what happens once negotiated, with other
 * messages, and at the end.
 */
abstract class SwitchChannel extends SimpleChannelInboundHandler<Object> {
    private static final Logger LOG = LoggerFactory.getLogger(SwitchChannel.class);
    static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);

    private final int maxIdleProbes;
    private int idleProbes;
    private final RateLimitedLog undecodable = new RateLimitedLog(10_000);
    /** Shared by every connection: anyone who reaches the listener can make connections fail (SSL handshakes). */
    private static final RateLimitedLog FAILURES = new RateLimitedLog(10_000);
    Channel channel;
    DeferredFlush out;
    RequestTracker tracker;

    SwitchChannel(int maxIdleProbes) {
        this.maxIdleProbes = maxIdleProbes;
    }

    /** A name for logs and error reports (the switch id once known). */
    abstract String name();

    /** The peer accepted OpenFlow 1.3. */
    abstract void negotiated();

    /** A message that is not HELLO, echo, or a reply to a tracked request. */
    abstract void onMessage(OFMessage m);

    /** The connection closed; the tracker's pending requests have failed already. */
    abstract void closed();

    void close() {
        channel.close();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        out = new DeferredFlush(channel);
        tracker = new RequestTracker(out, this::name);
        out.write(Hellos.ours(OF13));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        tracker.failAll();
        closed();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
        idleProbes = 0;
        if (msg instanceof Undecodable u) {
            if (u.fatal()) {
                LOG.warn("closing connection of switch {}: {}", name(), u);
                ctx.close();
            } else {
                undecodable.log(LOG, "switch {} sent a message OneSwitch cannot decode (skipped): {}", name(), u);
                tracker.undecodable(u.xid(), u.reason());
            }
            return;
        }
        OFMessage m = (OFMessage) msg;
        if (m.getType() == OFType.HELLO) {
            if (Hellos.accepts13((OFHello) m)) {
                negotiated();
            } else {
                LOG.warn("switch {} does not speak OpenFlow 1.3; closing", name());
                ctx.close();
            }
        } else if (m.getVersion() != OFVersion.OF_13) {
            LOG.warn("switch {} sent OpenFlow {} after negotiating 1.3; closing", name(), m.getVersion());
            ctx.close();
        } else if (m.getType() == OFType.ECHO_REQUEST) {
            out.write(OF13.buildEchoReply().setXid(m.getXid()).setData(((OFEchoRequest) m).getData()).build());
        } else if (m.getType() != OFType.ECHO_REPLY && !tracker.onMessage(m)) {
            onMessage(m);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (++idleProbes > maxIdleProbes) {
                LOG.warn("switch {} silent too long; closing", name());
                ctx.close();
            } else {
                out.write(OF13.buildEchoRequest().setXid(0).setData(new byte[0]).build());
            }
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FAILURES.log(LOG, "connection to switch {} failed: {}", name(), cause.toString());
        ctx.close();
    }
}
