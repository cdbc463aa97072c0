package org.uno.oneswitch.endpoint;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.OfChannels;
import org.uno.oneswitch.codec.Transport;
import org.uno.oneswitch.core.ControllerNotifier;
import org.uno.oneswitch.core.PhysicalNetwork;
import org.uno.oneswitch.core.VirtualSwitch;

/**
 * OneSwitch as an OpenFlow switch toward controllers: active connections to configured
 * controllers (reconnecting with exponential backoff) and a passive listener, all sharing the
 * virtual switch, the role state and the async-message fan-out.
 */
public final class Northbound {
    private static final Logger LOG = LoggerFactory.getLogger(Northbound.class);

    private final Controllers controllers = new Controllers();
    private final Roles roles = new Roles(controllers);
    private final EventLoopGroup group;
    private final Transport transport;
    private final Limits limits;
    private final List<Channel> listeners = new ArrayList<>();
    private RequestHandler requests;
    private volatile boolean stopped;
    /** Completes when controllers may be served (the switches are there, or the wait for them is over). */
    private final CompletableFuture<Void> ready = new CompletableFuture<>();

    /** What the DESC reply says. */
    public record Identity(String manufacturer, String hardware, String software, String serial, String datapath) {
    }

    /**
     * What one connection may cost: {@code idleSeconds} of silence before an echo probe and {@code
     * maxIdleProbes} unanswered probes before closing; {@code backlogBytes} queued for a peer that does
     * not read before closing (requests are no longer read past {@link #pauseBytes}); at most {@code
     * maxPassive} passive connections. The memory controllers can hold is about {@code (maxPassive +
     * active) * backlogBytes}. {@code turnNanos}: how long one connection's requests may hold the event
     * loop before the rest of it (other connections, the switches' replies, timers) gets a turn.
     */
    public record Limits(int idleSeconds, int maxIdleProbes, long backlogBytes, int maxPassive, long turnNanos) {
        /**
         * The turn a connection's requests get: 2 ms, a fifth of the 10 ms a controller's echo or a
         * PACKET_IN should wait at most, and about a hundred flow_mods once compiled.
         */
        public static final long TURN_NANOS = 2_000_000;

        /** The backlog past which a connection's requests wait (Netty's high-water mark too). */
        public int pauseBytes() {
            return (int) Math.min(1 << 20, backlogBytes / 4);
        }
    }

    public Northbound(EventLoopGroup group, Transport transport, Limits limits) {
        this.group = group;
        this.transport = transport;
        this.limits = limits;
    }

    Limits limits() {
        return limits;
    }

    /** Lets controller connections begin: those that connected meanwhile start their handshake now. */
    public void open() {
        ready.complete(null);
    }

    CompletableFuture<Void> ready() {
        return ready;
    }

    /** Where the virtual switch sends asynchronous messages. */
    public ControllerNotifier notifier() {
        return controllers;
    }

    /** Connects the endpoint to the virtual switch it serves (before any connection is made). */
    public void serve(VirtualSwitch vs, PhysicalNetwork net, Identity id) {
        this.requests = new RequestHandler(vs, net, roles, new MultipartHandler(vs, id));
    }

    Controllers controllers() {
        return controllers;
    }

    RequestHandler requests() {
        return requests;
    }

    /** How many controller connections completed their handshake. */
    public int connectedControllers() {
        return controllers.connected();
    }

    /** Listens for passive controller connections (ovs-ofctl, monitoring) on {@code address}. */
    public InetSocketAddress listen(InetSocketAddress address) throws InterruptedException {
        ChannelFuture f = new ServerBootstrap().group(group).channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
                .childHandler(OfChannels.initializer(limits.idleSeconds(), () -> new ControllerConnection(this, true)))
                .bind(address).sync();
        listeners.add(f.channel());
        LOG.info("OpenFlow listener for controllers on {}", f.channel().localAddress());
        return (InetSocketAddress) f.channel().localAddress();
    }

    /** Keeps a connection to the controller at {@code address}, retrying with backoff up to {@code maxBackoffMs}. */
    public void connect(InetSocketAddress address, long maxBackoffMs) {
        new Connector(address, maxBackoffMs).attempt(1000);
    }

    /** Netty reports the channel unwritable past the pause mark, writable again below half of it. */
    private WriteBufferWaterMark waterMark() {
        return new WriteBufferWaterMark(limits.pauseBytes() / 2, limits.pauseBytes());
    }

    /**
     * Stops reconnecting, closes the listeners and every controller connection, before the switches
     * go: like Open vSwitch at exit, OneSwitch closes its controller connections without reporting
     * ports down (the bridges keep forwarding, fail-secure).
     */
    public void stop() {
        stopped = true;
        listeners.forEach(Channel::close);
        group.submit(() -> List.copyOf(controllers.all()).forEach(ControllerConnection::close))
                .syncUninterruptibly();
    }

    /** One active controller target. */
    private final class Connector {
        private final InetSocketAddress address;
        private final long maxBackoffMs;

        Connector(InetSocketAddress address, long maxBackoffMs) {
            this.address = address;
            this.maxBackoffMs = maxBackoffMs;
        }

        void attempt(long nextBackoffMs) {
            if (stopped) {
                return;
            }
            new Bootstrap().group(group).channel(transport.socketChannel())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                    .option(ChannelOption.WRITE_BUFFER_WATER_MARK, waterMark())
                    .handler(OfChannels.initializer(limits.idleSeconds(),
                            () -> new ControllerConnection(Northbound.this, false)))
                    .connect(address).addListener((ChannelFuture f) -> {
                        if (f.isSuccess()) {
                            f.channel().closeFuture().addListener(c -> retry(1000));
                        } else {
                            LOG.debug("controller {} not reachable: {}", address, f.cause().toString());
                            retry(nextBackoffMs);
                        }
                    });
        }

        private void retry(long backoffMs) {
            if (!stopped) {
                group.schedule(() -> attempt(Math.min(backoffMs * 2, maxBackoffMs)), backoffMs, TimeUnit.MILLISECONDS);
            }
        }
    }
}
