package org.uno.oneswitch.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/** JSON responses of the REST server. */
final class Responses {
    private Responses() {
    }

    /** A response with {@code body} as indented JSON (none for null or 204). */
    static FullHttpResponse json(int status, JsonNode body) {
        byte[] bytes;
        try {
            bytes = body == null || status == 204 ? new byte[0]
                    : RestServer.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serializes", e);
        }
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                Unpooled.wrappedBuffer(bytes));
        if (bytes.length > 0) {
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        }
        HttpUtil.setContentLength(r, bytes.length);
        return r;
    }

    /** Answers {@code reason} with {@code status} and closes the connection (nothing more is read from it). */
    static ChannelFuture sendAndClose(ChannelHandlerContext ctx, HttpResponseStatus status, String reason) {
        FullHttpResponse r = json(status.code(), RestServer.error(reason));
        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        // From the tail: the handlers before the HTTP codec (connection limit, deadline) answer too.
        return ctx.channel().writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
    }
}
