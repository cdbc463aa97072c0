package org.uno.oneswitch.codec;

import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * The Netty pipeline every OpenFlow connection of OneSwitch uses: idle probe, framing and decoding,
 * handler (which writes encoded bytes through {@link DeferredFlush}).
 */
public final class OfChannels {
    private OfChannels() {
    }

    /**
     * An initializer installing the pipeline, with a reader-idle event every {@code idleSeconds}
     * and a fresh handler from {@code handler} per connection.
     */
    public static ChannelInitializer<Channel> initializer(int idleSeconds, Supplier<ChannelHandler> handler) {
        return initializer(idleSeconds, Optional.empty(), handler);
    }

    /** The same pipeline behind a security layer made by {@code secure} for each connection (SSL), if any. */
    public static ChannelInitializer<Channel> initializer(int idleSeconds,
                                                          Optional<Function<Channel, ChannelHandler>> secure,
                                                          Supplier<ChannelHandler> handler) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.config().setOption(ChannelOption.TCP_NODELAY, true);
                secure.ifPresent(s -> ch.pipeline().addLast(s.apply(ch)));
                ch.pipeline().addLast(new IdleStateHandler(idleSeconds, 0, 0), new OfFrameDecoder(),
                        handler.get());
            }
        };
    }
}
