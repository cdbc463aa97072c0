package org.uno.oneswitch.rest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.netty.channel.EventLoop;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OneSwitch's REST server (JDK HttpServer, JSON bodies). Requests run on OneSwitch's event loop,
 * so they see and change the same state as OpenFlow messages, one at a time. Errors are JSON
 * objects {"error": reason} with a 4xx status; bodies are limited to 64 KiB.
 */
public final class RestServer {
    private static final Logger LOG = LoggerFactory.getLogger(RestServer.class);
    private static final int MAX_BODY = 64 * 1024;
    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final ExecutorService workers = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "oneswitch-rest");
        t.setDaemon(true);
        return t;
    });
    private final EventLoop loop;
    private final RestApi api;

    private RestServer(HttpServer server, EventLoop loop, RestApi api) {
        this.server = server;
        this.loop = loop;
        this.api = api;
    }

    /** Starts serving {@code api} on {@code address}, running its handlers on {@code loop}. */
    public static RestServer start(InetSocketAddress address, EventLoop loop, RestApi api) throws IOException {
        // The JDK server writes a response's headers and body separately: without TCP_NODELAY, Nagle
        // holds the body back until the client's delayed ACK, 40 ms on every keep-alive request.
        // Read once, when the server's configuration class loads (the first server of the process).
        System.setProperty("sun.net.httpserver.nodelay", "true");
        HttpServer server = HttpServer.create(address, 16);
        RestServer rs = new RestServer(server, loop, api);
        server.createContext("/", rs::handle);
        server.setExecutor(rs.workers);
        server.start();
        LOG.info("REST API on http://{}:{}/", address.getHostString(), server.getAddress().getPort());
        return rs;
    }

    public void stop() {
        server.stop(0);
        workers.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        int status;
        JsonNode body;
        try {
            JsonNode request = readBody(ex);
            RestApi.Response r = onLoop(() -> api.handle(ex.getRequestMethod(), ex.getRequestURI().getPath(),
                    ex.getRequestURI().getRawQuery(), request));
            status = r.status();
            body = r.body();
        } catch (HttpError e) {
            status = e.status();
            body = error(e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("REST {} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
            status = 500;
            body = error("internal error: " + e);
        }
        byte[] bytes = body == null ? new byte[0] : JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, status == 204 ? -1 : bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            if (status != 204) {
                os.write(bytes);
            }
        }
    }

    /**
     * Runs {@code task} on the event loop and waits for the response it promises (a remap completes
     * only when its last stage is done, on the loop too).
     */
    private <T> T onLoop(Callable<CompletableFuture<T>> task) throws HttpError {
        Future<CompletableFuture<T>> f = loop.submit(task);
        try {
            return f.get(30, TimeUnit.SECONDS).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause()
                    : e.getCause();
            if (cause instanceof HttpError h) {
                throw h;
            }
            throw new IllegalStateException(cause);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new HttpError(503, "OneSwitch is busy; try again");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HttpError(503, "interrupted");
        }
    }

    private static JsonNode readBody(HttpExchange ex) throws IOException, HttpError {
        byte[] bytes;
        try (InputStream in = ex.getRequestBody()) {
            bytes = in.readNBytes(MAX_BODY + 1);
        }
        if (bytes.length > MAX_BODY) {
            throw new HttpError(413, "request body larger than " + MAX_BODY + " bytes");
        }
        if (bytes.length == 0) {
            return null;
        }
        try {
            return JSON.readTree(new String(bytes, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new HttpError(400, "request body is not valid JSON: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    static ObjectNode error(String reason) {
        return JSON.createObjectNode().put("error", reason);
    }
}
