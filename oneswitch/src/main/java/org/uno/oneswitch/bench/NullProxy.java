package org.uno.oneswitch.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;

import org.uno.oneswitch.codec.Transport;
import org.uno.oneswitch.core.LoopWatch;

/**
 * A benchmark baseline: OneSwitch's runtime (JVM, Netty, the same epoll transport and single event
 * loop) forwarding bytes between a TCP client and a bridge's Unix management socket without
 * parsing them. The flow_mod benchmark compares OneSwitch with it to tell the cost of OneSwitch's
 * own work from the cost of being a Java proxy at all.
 *
 * <pre>java -cp oneswitch.jar org.uno.oneswitch.bench.NullProxy PORT UNIX_SOCKET_PATH</pre>
 * Listens on 127.0.0.1:PORT; each client gets its own connection to the bridge.
 */
public final class NullProxy {
    private NullProxy() {
    }

    public static void main(String[] args) throws InterruptedException {
        int port = args.length == 2 || args.length == 3 ? parsePort(args[0]) : -1;
        if (port < 0) {
            System.err.println("usage: NullProxy PORT UNIX_SOCKET_PATH [LOOP_REPORT] (listens on 127.0.0.1:PORT; "
                    + "writes its event loop's lateness to LOOP_REPORT every second)");
            System.exit(2);
        }
        Transport transport = Transport.best();
        if (!transport.unixSockets()) {
            System.err.println("NullProxy: the epoll transport is not available");
            System.exit(1);
        }
        EventLoopGroup loop = transport.newGroup("nullproxy-loop");
        if (args.length == 3) {
            watch(loop.next(), Path.of(args[2]));
        }
        new ServerBootstrap().group(loop).channel(transport.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel client) {
                        client.pipeline().addLast(new ClientSide(transport, args[1]));
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", port)).sync().channel().closeFuture().sync();
    }

    /**
     * The same watch as OneSwitch's (a 5 ms tick, {@link LoopWatch}) on the proxy's one event loop, written to
     * {@code report} every second: what a proxy that does nothing but copy bytes suffers in the same run.
     */
    private static void watch(EventLoop loop, Path report) {
        LoopWatch watch = new LoopWatch(System::nanoTime, (ms, task) -> loop.schedule(task, ms, TimeUnit.MILLISECONDS));
        loop.execute(watch::start);
        loop.scheduleAtFixedRate(() -> {
            try {
                Path tmp = report.resolveSibling(report.getFileName() + ".tmp");
                Files.writeString(tmp, watch.json() + "\n");
                Files.move(tmp, report, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                System.err.println("NullProxy: cannot write " + report + ": " + e.getMessage());
            }
        }, 1, 1, TimeUnit.SECONDS);
    }

    private static int parsePort(String s) {
        try {
            int p = Integer.parseInt(s);
            return p >= 1 && p <= 65535 ? p : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Copies each read of one side to the other, flushing at once, as OneSwitch flushes per batch. */
    private static final class Forward extends ChannelInboundHandlerAdapter {
        private final Channel to;

        Forward(Channel to) {
            this.to = to;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            to.writeAndFlush(msg, to.voidPromise());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            to.close();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** The client's side: reading starts once the bridge connection is up. */
    private static final class ClientSide extends ChannelInboundHandlerAdapter {
        private final Transport transport;
        private final String bridgeSocket;

        ClientSide(Transport transport, String bridgeSocket) {
            this.transport = transport;
            this.bridgeSocket = bridgeSocket;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Channel client = ctx.channel();
            new Bootstrap().group(client.eventLoop()).channel(transport.domainSocketChannel())
                    .handler(new Forward(client))
                    .connect(new DomainSocketAddress(bridgeSocket))
                    .addListener((ChannelFutureListener) f -> {
                        if (!f.isSuccess()) {
                            client.close();
                            return;
                        }
                        client.pipeline().replace(this, "forward", new Forward(f.channel()));
                        client.config().setAutoRead(true);
                    });
        }
    }
}
