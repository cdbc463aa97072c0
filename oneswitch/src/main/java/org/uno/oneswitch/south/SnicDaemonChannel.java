package org.uno.oneswitch.south;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
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
 * <p>The connection is opened on the first call and again after it closes ({@link LazyConnection}).
 * A call not answered within {@value #PURGE_TIMEOUT_MS} ms (a management link that went down)
 * fails and closes the connection. Runs on OneSwitch's event loop.
 */
final class SnicDaemonChannel extends LazyConnection<JsonNode> implements DatapathPurge {
    static final long PURGE_TIMEOUT_MS = 1000;
    private static final int MAX_MESSAGE = 1 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] PURGE = "{\"op\":\"purge_datapath\"}".getBytes(StandardCharsets.UTF_8);

    private final String switchId;
    private final InetSocketAddress address;
    private final EventLoopGroup group;
    private final Transport transport;
    private final SouthboundTls tls;

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
        CompletableFuture<JsonNode> reply = enqueue(PURGE);
        flush();
        var timer = group.schedule(() -> {
            if (reply.completeExceptionally(new IllegalStateException("the sNIC daemon at " + address
                    + " did not answer in " + PURGE_TIMEOUT_MS + " ms"))) {
                close();
            }
        }, PURGE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        return reply.whenComplete((r, t) -> timer.cancel(false)).thenAccept(r -> {
            if (!r.path("ok").asBoolean(false)) {
                throw new IllegalStateException("the sNIC daemon at " + address + " refused: "
                        + r.path("error").asText("no reason"));
            }
        });
    }

    @Override
    protected CompletableFuture<Channel> open() {
        CompletableFuture<Channel> opened = new CompletableFuture<>();
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
                        opened.completeExceptionally(new IllegalStateException("cannot reach " + address + ": "
                                + f.cause().getMessage()));
                        return;
                    }
                    SslHandler ssl = f.channel().pipeline().get(SslHandler.class);
                    ssl.handshakeFuture().addListener(h -> {
                        String refused = h.isSuccess() ? unproven(ssl)
                                : "TLS with " + address + " failed: " + h.cause().getMessage();
                        if (refused == null) {
                            opened.complete(f.channel());
                        } else {
                            f.channel().close();
                            opened.completeExceptionally(new IllegalStateException(refused));
                        }
                    });
                });
        return opened;
    }

    /** Why the daemon's certificate is not the one of the switch, or null if it is. */
    private String unproven(SslHandler ssl) {
        if (tls.proves(switchId, ssl.engine().getSession())) {
            return null;
        }
        return address + " presented " + SouthboundTls.subject(ssl.engine().getSession()).orElse("no certificate")
                + ", not the certificate of " + switchId;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws IOException {
        ByteBuf frame = (ByteBuf) msg;
        try {
            CompletableFuture<JsonNode> reply = oldest();
            if (reply != null) {
                reply.complete(JSON.readTree(ByteBufUtil.getBytes(frame)));
            }
        } finally {
            frame.release();
        }
    }
}
