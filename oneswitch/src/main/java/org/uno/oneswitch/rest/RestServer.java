package org.uno.oneswitch.rest;

import java.net.InetSocketAddress;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.Transport;

/**
 * OneSwitch's REST server: Netty's HTTP/1.1 codec on OneSwitch's event loop, so that handlers see
 * and change the same state as OpenFlow messages, one at a time, and no client can hold a thread.
 * Each connection has {@code requestTimeoutMs} to deliver a whole request (headers and body) once
 * its first byte came, and is closed after {@code idleTimeoutMs} without one; at most {@code
 * maxConnections} are open (more are answered 503 and closed). Request lines, headers and bodies are
 * limited in size. Errors are JSON objects {"error": reason} with a 4xx or 5xx status.
 */
public final class RestServer {
    private static final Logger LOG = LoggerFactory.getLogger(RestServer.class);
    static final ObjectMapper JSON = new ObjectMapper();
    static final int MAX_BODY = 64 * 1024;
    private static final int MAX_LINE = 4096;
    private static final int MAX_HEADERS = 8192;

    /** How long and how many clients may take; {@code token} is the shared secret clients must send, if any. */
    public record Limits(long requestTimeoutMs, long idleTimeoutMs, int maxConnections, Optional<String> token) {
    }

    private final Channel listener;

    private RestServer(Channel listener) {
        this.listener = listener;
    }

    /** Starts serving {@code api} on {@code address}, on {@code loop}. */
    public static RestServer start(InetSocketAddress address, EventLoop loop, Transport transport, RestApi api,
                                   Limits limits) throws InterruptedException {
        Connections connections = new Connections(limits.maxConnections());
        Channel ch = new ServerBootstrap().group(loop).channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel c) {
                        c.pipeline().addLast(connections, new RequestDeadline(limits),
                                new HttpServerCodec(MAX_LINE, MAX_HEADERS, MAX_BODY),
                                new HttpServerKeepAliveHandler(), new BodyLimit(MAX_BODY),
                                new RestHandler(api, limits.token()));
                    }
                })
                .bind(address).sync().channel();
        LOG.info("REST API on http://{}:{}/ ({})", address.getHostString(),
                ((InetSocketAddress) ch.localAddress()).getPort(), limits.token().isPresent()
                        ? "clients must send the token" : "no token");
        return new RestServer(ch);
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    public void stop() {
        listener.close().syncUninterruptibly();
    }

    static ObjectNode error(String reason) {
        return JSON.createObjectNode().put("error", reason);
    }
}
