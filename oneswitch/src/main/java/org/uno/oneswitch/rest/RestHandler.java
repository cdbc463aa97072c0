package org.uno.oneswitch.rest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One REST connection's requests: checks the token, decodes the path, query and JSON body, runs
 * {@link RestApi} (on the event loop, where this handler runs) and writes its answer, or 503 when the
 * answer takes longer than {@value #ANSWER_TIMEOUT_MS} ms (a remap waiting for a busy switch).
 */
final class RestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(RestHandler.class);
    static final long ANSWER_TIMEOUT_MS = 30_000;
    /** The header carrying the token, as the NF agent's API (and Nova's) uses it. */
    static final String TOKEN_HEADER = "X-Auth-Token";
    /** Answered without the token: liveness and the API's description. */
    private static final List<String> OPEN_PATHS = List.of("/v1/health", "/v1/openapi.json");

    private final RestApi api;
    private final Optional<byte[]> token;
    /** Completes when the answers to every request so far are written. */
    private CompletableFuture<Void> written = CompletableFuture.completedFuture(null);
    private int pending;

    RestHandler(RestApi api, Optional<String> token) {
        this.api = api;
        this.token = token.map(t -> t.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        ctx.pipeline().fireUserEventTriggered(RequestDeadline.RECEIVED);
        if (req.decoderResult().isFailure()) {
            Responses.sendAndClose(ctx, HttpResponseStatus.BAD_REQUEST, "malformed HTTP request: "
                    + req.decoderResult().cause().getMessage());
            return;
        }
        String method = req.method().name();
        CompletableFuture<RestApi.Response> answer;
        try {
            QueryStringDecoder uri = decode(req.uri());
            if (!OPEN_PATHS.contains(uri.path()) && !authorized(req)) {
                throw new HttpError(401, "missing or wrong " + TOKEN_HEADER);
            }
            answer = api.handle(method, uri.path(), single(uri.parameters()), body(req));
        } catch (HttpError | RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        String what = method + " " + req.uri();
        CompletableFuture<RestApi.Response> bounded = new CompletableFuture<>();
        var timer = ctx.executor().schedule(() -> bounded.completeExceptionally(
                new HttpError(503, "OneSwitch is busy; try again")), ANSWER_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        answer.whenComplete((r, t) -> {
            if (t != null) {
                bounded.completeExceptionally(t);
            } else {
                bounded.complete(r);
            }
        });
        // Answers leave in the order of the requests (HTTP/1.1 pipelining); no more is read meanwhile.
        pending++;
        ctx.channel().config().setAutoRead(false);
        written = written.thenCompose(v -> bounded.handle((r, t) -> (Runnable) () -> {
            timer.cancel(false);
            respond(ctx, what, keepAlive, r, t);
        })).thenAcceptAsync(Runnable::run, ctx.executor());
    }

    private void respond(ChannelHandlerContext ctx, String what, boolean keepAlive, RestApi.Response r, Throwable t) {
        Throwable cause = t instanceof CompletionException c && c.getCause() != null ? c.getCause() : t;
        FullHttpResponse response;
        if (cause == null) {
            response = Responses.json(r.status(), r.body());
        } else if (cause instanceof HttpError e) {
            response = Responses.json(e.status(), RestServer.error(e.getMessage()));
        } else {
            LOG.error("REST {} failed", what, cause);
            response = Responses.json(500, RestServer.error("internal error: " + cause));
        }
        HttpUtil.setKeepAlive(response, keepAlive);
        ctx.writeAndFlush(response);
        if (--pending == 0) {
            ctx.pipeline().fireUserEventTriggered(RequestDeadline.ANSWERED);
            ctx.channel().config().setAutoRead(true);
        }
    }

    private boolean authorized(FullHttpRequest req) {
        if (token.isEmpty()) {
            return true;
        }
        String given = req.headers().get(TOKEN_HEADER);
        return given != null && MessageDigest.isEqual(token.get(), given.getBytes(StandardCharsets.UTF_8));
    }

    private static QueryStringDecoder decode(String uri) throws HttpError {
        try {
            QueryStringDecoder d = new QueryStringDecoder(uri);
            d.parameters();  // decodes now, so that a bad escape is this request's error
            return d;
        } catch (IllegalArgumentException e) {
            throw new HttpError(400, "malformed request target: " + e.getMessage());
        }
    }

    /** Each parameter's one value; a repeated parameter is ambiguous, so refused. */
    private static Map<String, String> single(Map<String, List<String>> params) throws HttpError {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> p : params.entrySet()) {
            if (p.getValue().size() != 1) {
                throw new HttpError(400, "query parameter '" + p.getKey() + "' given " + p.getValue().size() + " times");
            }
            out.put(p.getKey(), p.getValue().get(0));
        }
        return out;
    }

    private static JsonNode body(FullHttpRequest req) throws HttpError {
        if (req.content().readableBytes() == 0) {
            return null;
        }
        try {
            return RestServer.JSON.readTree(req.content().toString(StandardCharsets.UTF_8));
        } catch (JacksonException e) {
            throw new HttpError(400, "request body is not valid JSON: "
                    + e.getOriginalMessage().lines().findFirst().orElse(""));
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("REST connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
