package org.uno.oneswitch.south;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * A client whose requests are answered one at a time, in order, over one connection that is opened
 * on the first request and again after it closes. Requests made while it opens wait for it (and fail
 * if it cannot be opened); those sent and not answered when it closes fail. A request whose reply
 * already completed (a caller's timeout) is not sent. Runs on OneSwitch's event loop; the subclass
 * opens the connection, with this handler in its pipeline, and reads the replies.
 *
 * @param <T> what a reply completes with
 */
abstract class LazyConnection<T> extends ChannelInboundHandlerAdapter {
    private record Pending<T>(byte[] request, CompletableFuture<T> reply) {
    }

    private final ArrayDeque<Pending<T>> waiting = new ArrayDeque<>();
    private final ArrayDeque<Pending<T>> sent = new ArrayDeque<>();
    private Channel channel;
    private boolean connecting;

    /** Opens the connection; completes with it, ready for requests, or fails saying why. */
    protected abstract CompletableFuture<Channel> open();

    /** Queues {@code request} (sent at the next {@link #flush}); its reply. */
    protected final CompletableFuture<T> enqueue(byte[] request) {
        Pending<T> p = new Pending<>(request, new CompletableFuture<>());
        waiting.add(p);
        return p.reply();
    }

    /** Sends what is queued, in one write, opening the connection first if it is not open. */
    protected final void flush() {
        if (channel != null && channel.isActive()) {
            for (Pending<T> p; (p = waiting.poll()) != null; ) {
                if (!p.reply().isDone()) {
                    sent.add(p);
                    channel.write(Unpooled.wrappedBuffer(p.request()));
                }
            }
            channel.flush();
        } else if (!connecting) {
            connecting = true;
            open().whenComplete((c, t) -> {
                connecting = false;
                if (t == null) {
                    channel = c;
                    flush();
                } else {
                    failAll(waiting, t.getMessage());
                }
            });
        }
    }

    /** The reply of the oldest request sent and not answered yet, or null if there is none. */
    protected final CompletableFuture<T> oldest() {
        Pending<T> p = sent.poll();
        return p == null ? null : p.reply();
    }

    public void close() {
        if (channel != null) {
            channel.close();
        }
    }

    @Override
    public boolean isSharable() {
        return true;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (channel != null && ctx.channel() != channel) {
            return;   // an earlier connection, closed after a timeout
        }
        channel = null;
        failAll(sent, "the connection closed");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }

    private static <T> void failAll(ArrayDeque<Pending<T>> calls, String why) {
        for (Pending<T> p; (p = calls.poll()) != null; ) {
            p.reply().completeExceptionally(new IllegalStateException(why));
        }
    }
}
