package org.uno.oneswitch.rest;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpResponseStatus;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.log.RateLimitedLog;
import org.uno.oneswitch.stats.Counts;

/**
 * Counts the REST connections (all on one event loop) and turns away those past the limit with a
 * 503 before reading anything from them.
 */
@ChannelHandler.Sharable
final class Connections extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(Connections.class);

    private final RateLimitedLog refusals = new RateLimitedLog(10_000);

    private final int max;
    private int open;

    Connections(int max) {
        this.max = max;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (open >= max) {
            refusals.log(LOG, "REST: refusing a connection from {}: {} already open", ctx.channel().remoteAddress(), max);
            Responses.sendAndClose(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "too many REST connections (" + max + "); try again");
            return;
        }
        open++;
        ctx.channel().closeFuture().addListener(f -> open--);
        ctx.fireChannelActive();
    }
}
