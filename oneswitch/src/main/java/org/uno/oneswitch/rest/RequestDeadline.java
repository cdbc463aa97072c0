package org.uno.oneswitch.rest;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Closes a REST connection that takes longer than the request timeout to deliver a whole request
 * once its first byte came (a client trickling headers or a body), or that stays idle between
 * requests past the idle timeout. Sits before the HTTP codec, so it sees the bytes as they arrive;
 * the handler tells it when a request is complete ({@link #RECEIVED}) and when it was answered
 * ({@link #ANSWERED}).
 */
final class RequestDeadline extends ChannelInboundHandlerAdapter {
    /** User events fired from the pipeline's head by the handler. */
    static final Object RECEIVED = "request received";
    static final Object ANSWERED = "request answered";

    private final RestServer.Limits limits;
    private ScheduledFuture<?> timer;
    private boolean receiving;

    RequestDeadline(RestServer.Limits limits) {
        this.limits = limits;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        arm(ctx, limits.idleTimeoutMs(), false);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!receiving) {
            receiving = true;
            arm(ctx, limits.requestTimeoutMs(), true);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == RECEIVED) {
            receiving = false;
            cancel();
        } else if (evt == ANSWERED) {
            if (!receiving) {
                arm(ctx, limits.idleTimeoutMs(), false);
            }
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    private void arm(ChannelHandlerContext ctx, long ms, boolean request) {
        cancel();
        timer = ctx.executor().schedule(() -> {
            if (request) {
                Responses.sendAndClose(ctx, HttpResponseStatus.REQUEST_TIMEOUT,
                        "the request did not arrive within " + ms + " ms");
            } else {
                ctx.close();
            }
        }, ms, TimeUnit.MILLISECONDS);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
