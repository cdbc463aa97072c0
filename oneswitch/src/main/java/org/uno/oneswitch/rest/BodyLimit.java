package org.uno.oneswitch.rest;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;

/** Gathers a request's body up to {@code maxBytes}; a larger one is answered 413 (JSON) and its connection closed. */
final class BodyLimit extends HttpObjectAggregator {
    private final int maxBytes;

    BodyLimit(int maxBytes) {
        super(maxBytes);
        this.maxBytes = maxBytes;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        Responses.sendAndClose(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "request body larger than " + maxBytes + " bytes");
    }
}
