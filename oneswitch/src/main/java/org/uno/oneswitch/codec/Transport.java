package org.uno.oneswitch.codec;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * The Netty transport OneSwitch runs on: Linux epoll when its native library loads (it also gives
 * Unix domain sockets, used to reach the bridges' management sockets), otherwise Java NIO (TCP
 * only). One event loop thread either way.
 */
public final class Transport {
    private final boolean epoll;

    private Transport(boolean epoll) {
        this.epoll = epoll;
    }

    /** Epoll if available, else NIO. */
    public static Transport best() {
        return new Transport(Epoll.isAvailable());
    }

    /** Always NIO (tests, or when epoll must not be used). */
    public static Transport nio() {
        return new Transport(false);
    }

    public EventLoopGroup newGroup(String threadName) {
        DefaultThreadFactory tf = new DefaultThreadFactory(threadName);
        return epoll ? new EpollEventLoopGroup(1, tf) : new NioEventLoopGroup(1, tf);
    }

    public Class<? extends ServerChannel> serverChannel() {
        return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public Class<? extends Channel> socketChannel() {
        return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** True when Unix domain sockets can be used. */
    public boolean unixSockets() {
        return epoll;
    }

    public Class<? extends Channel> domainSocketChannel() {
        if (!epoll) {
            throw new IllegalStateException("Unix domain sockets need the epoll transport");
        }
        return EpollDomainSocketChannel.class;
    }

    @Override
    public String toString() {
        return epoll ? "epoll" : "nio";
    }
}
