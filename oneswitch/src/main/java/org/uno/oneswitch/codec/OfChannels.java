package org.uno.oneswitch.codec;

import java.util.function.Supplier;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.timeout.IdleStateHandler;

/** The Netty pipeline every OpenFlow connection of OneSwitch uses: idle probe, framing, encoding, handler. */
public final class OfChannels {
    private static final OfMessageEncoder ENCODER = new OfMessageEncoder();

    private OfChannels() {
    }

    /**
     * An initializer installing the pipeline, with a reader-idle event every {@code idleSeconds}
     * and a fresh handler from {@code handler} per connection.
     */
    public static ChannelInitializer<SocketChannel> initializer(int idleSeconds, Supplier<ChannelHandler> handler) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.config().setOption(ChannelOption.TCP_NODELAY, true);
                ch.pipeline().addLast(new IdleStateHandler(idleSeconds, 0, 0), new OfFrameDecoder(), ENCODER,
                        handler.get());
            }
        };
    }
}
