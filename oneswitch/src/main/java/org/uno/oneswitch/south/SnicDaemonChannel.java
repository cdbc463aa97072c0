package org.uno.oneswitch.south;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.SslHandler;

import org.uno.oneswitch.codec.Transport;

/**
 * OneSwitch's channel to the daemon of a sNIC that is a machine of its own ({@code uno-snicd}),
 * which alone reaches that sNIC's Open vSwitch control socket: mutual TLS, messages framed as a
 * 4-byte big-endian length and a JSON object, one reply per request, in order. OneSwitch asks it
 * only to purge the switch's cached datapath flows (the daemon lets OneSwitch's certificate do
 * nothing else), and the daemon must present the certificate the description names for that
 * switch.
 *
 * <p>The connection is opened on the first call and again after it closes. A call not answered
 * within {@value #PURGE_TIMEOUT_MS} ms (a management link that went down) fails and closes the
 * connection. Runs on OneSwitch's event loop.
 */
final class SnicDaemonChannel extends SimpleChannelInboundHandler<ByteBuf> implements DatapathPurge {
    static final long PURGE_TIMEOUT_MS = 1000;
    private static final int MAX_MESSAGE = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] PURGE = "{\"op\":\"purge_datapath\"}".getBytes(StandardCharsets.UTF_8);

    private final String switchId;
    private final InetSocketAddress address;
    private final EventLoopGroup group;
    private final Transport transport;
    private final SouthboundTls tls;
    private final ArrayDeque<CompletableFuture<Void>> waiting = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Void>> sent = new ArrayDeque<>();
    private Channel channel;
    private boolean connecting;

    SnicDaemonChannel(String switchId, InetSocketAddress address, EventLoopGroup group, Transport transport,
                      SouthboundTls tls) {
        this.switchId = switchId;
        this.address = address;
        this.group = group;
        this.transport = transport;
        this.tls = tls;
    }

    @Override
    public CompletableFuture<Void> purge() {
        CompletableFuture<Void> reply = new CompletableFuture<>();
        waiting.add(reply);
        flush();
        var timer = group.schedule(() -> {
            if (reply.completeExceptionally(new IllegalStateException("the sNIC daemon at " + address
                    + " did not answer in " + PURGE_TIMEOUT_MS + " ms"))) {
                close();
            }
        }, PURGE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        return reply.whenComplete((v, t) -> timer.cancel(false));
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close();
        }
    }

    private void flush() {
        if (channel != null && channel.isActive()) {
            for (CompletableFuture<Void> r; (r = waiting.poll()) != null; ) {
                if (!r.isDone()) {
                    sent.add(r);
                    channel.write(Unpooled.wrappedBuffer(PURGE));
                }
            }
            channel.flush();
        } else if (!connecting) {
            connecting = true;
            new Bootstrap().group(group).channel(transport.socketChannel())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) PURGE_TIMEOUT_MS)
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel c) {
                            c.pipeline().addLast(tls.newClientHandler(c.alloc()),
                                    new LengthFieldBasedFrameDecoder(MAX_MESSAGE, 0, 4, 0, 4),
                                    new LengthFieldPrepender(4), SnicDaemonChannel.this);
                        }
                    })
                    .connect(address).addListener((ChannelFuture f) -> {
                        if (!f.isSuccess()) {
                            connected(null, "cannot reach " + address + ": " + f.cause().getMessage());
                            return;
                        }
                        SslHandler ssl = f.channel().pipeline().get(SslHandler.class);
                        ssl.handshakeFuture().addListener(h -> {
                            if (!h.isSuccess()) {
                                f.channel().close();
                                connected(null, "TLS with " + address + " failed: " + h.cause().getMessage());
                            } else if (!tls.proves(switchId, ssl.engine().getSession())) {
                                f.channel().close();
                                connected(null, address + " presented "
                                        + SouthboundTls.subject(ssl.engine().getSession()).orElse("no certificate")
                                        + ", not the certificate of " + switchId);
                            } else {
                                connected(f.channel(), null);
                            }
                        });
                    });
        }
    }

    private void connected(Channel c, String failure) {
        connecting = false;
        channel = c;
        if (c != null) {
            flush();
        } else {
            failAll(waiting, failure);
        }
    }

    @Override
    public boolean isSharable() {
        return true;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) throws Exception {
        JsonNode reply = JSON.readTree(ByteBufUtil.getBytes(frame));
        CompletableFuture<Void> r = sent.poll();
        if (r == null) {
            return;
        }
        if (reply.path("ok").asBoolean(false)) {
            r.complete(null);
        } else {
            r.completeExceptionally(new IllegalStateException("the sNIC daemon at " + address + " refused: "
                    + reply.path("error").asText("no reason")));
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (channel != null && ctx.channel() != channel) {
            return;   // an earlier connection, closed after a timeout
        }
        channel = null;
        failAll(sent, "connection to " + address + " closed");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private static void failAll(ArrayDeque<CompletableFuture<Void>> calls, String why) {
        for (CompletableFuture<Void> c; (c = calls.poll()) != null; ) {
            c.completeExceptionally(new IllegalStateException(why));
        }
    }
}
