package org.uno.oneswitch.south;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;

import org.uno.oneswitch.codec.Transport;

/**
 * A client of an Open vSwitch daemon's control socket, the one {@code ovs-appctl} talks to:
 * JSON-RPC 1.0 requests, answered one at a time and in order. Used to purge a datapath's cached
 * flows, so that they follow the flow table at once (see {@code PhysicalSwitches.revalidated}).
 * The purge is three commands sent in one write: see {@link DatapathPurge#purge}.
 *
 * <p>The connection is opened on the first call and again after it closes ({@link LazyConnection}).
 * Runs on OneSwitch's event loop.
 */
final class Appctl extends LazyConnection<JsonNode> implements DatapathPurge {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> PURGE_SEQUENCE =
            List.of("revalidator/pause", "revalidator/purge", "revalidator/resume");

    private final String path;
    private final EventLoopGroup group;
    private final Transport transport;
    private ByteBuf in = Unpooled.buffer();
    private long nextId = 1;

    Appctl(String path, EventLoopGroup group, Transport transport) {
        this.path = path;
        this.group = group;
        this.transport = transport;
    }

    @Override
    public CompletableFuture<Void> purge() {
        return callAll(PURGE_SEQUENCE);
    }

    /**
     * Runs {@code methods} (without parameters) in order, their requests sent in one write so that
     * the daemon receives all of them or none; completes when all have succeeded.
     */
    private CompletableFuture<Void> callAll(List<String> methods) {
        CompletableFuture<?>[] replies = methods.stream().map(this::call).toArray(CompletableFuture[]::new);
        flush();
        return CompletableFuture.allOf(replies);
    }

    private CompletableFuture<JsonNode> call(String method) {
        ObjectNode req = JSON.createObjectNode().put("method", method).put("id", nextId++);
        req.putArray("params");
        return enqueue(req.toString().getBytes(StandardCharsets.UTF_8)).thenApply(r -> {
            if (!r.path("error").isNull() && !r.path("error").isMissingNode()) {
                throw new IllegalStateException(method + " failed: " + r.path("error").asText());
            }
            return r;
        });
    }

    @Override
    protected CompletableFuture<Channel> open() {
        CompletableFuture<Channel> opened = new CompletableFuture<>();
        String socket = controlSocket(path);
        new Bootstrap().group(group).channel(transport.domainSocketChannel()).handler(this)
                .connect(new DomainSocketAddress(socket)).addListener((ChannelFuture f) -> {
                    if (f.isSuccess()) {
                        opened.complete(f.channel());
                    } else {
                        opened.completeExceptionally(new IllegalStateException("cannot reach " + socket + ": "
                                + f.cause().getMessage()));
                    }
                });
        return opened;
    }

    /**
     * {@code path}, or where it does not exist the name the daemon gives its control socket by default
     * next to it, which carries its pid (a system's Open vSwitch: {@code ovs-vswitchd.<pid>.ctl}, found
     * from {@code ovs-vswitchd.pid} as ovs-appctl finds it). Looked up at each connection: a restarted
     * daemon has another pid.
     */
    static String controlSocket(String path) {
        Path given = Path.of(path);
        if (Files.exists(given)) {
            return path;
        }
        try {
            String pid = Files.readString(given.resolveSibling("ovs-vswitchd.pid")).trim();
            return pid.matches("[0-9]+") ? given.resolveSibling("ovs-vswitchd." + pid + ".ctl").toString() : path;
        } catch (IOException e) {
            return path;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws IOException {
        ByteBuf b = (ByteBuf) msg;
        in.writeBytes(b);
        b.release();
        for (byte[] object : takeObjects()) {
            CompletableFuture<JsonNode> reply = oldest();
            if (reply != null) {
                reply.complete(JSON.readTree(object));
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        in = Unpooled.buffer();
        super.channelInactive(ctx);
    }

    /** The complete top-level JSON objects at the start of the input (the rest waits for more bytes). */
    private List<byte[]> takeObjects() {
        List<byte[]> out = new ArrayList<>();
        int depth = 0;
        boolean inString = false;
        boolean escape = false;
        int start = in.readerIndex();
        for (int i = in.readerIndex(); i < in.writerIndex(); i++) {
            byte c = in.getByte(i);
            if (inString) {
                if (escape) {
                    escape = false;
                } else if (c == '\\') {
                    escape = true;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                byte[] obj = new byte[i + 1 - start];
                in.getBytes(start, obj);
                out.add(obj);
                start = i + 1;
            }
        }
        in.readerIndex(start);
        in.discardReadBytes();
        return out;
    }
}
