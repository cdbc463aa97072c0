package org.uno.oneswitch.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;

import org.projectfloodlight.openflow.protocol.OFMessage;

/**
 * Encodes messages for a channel into one buffer and writes and flushes it once after the current
 * event-loop task, so that the many messages one batch of input produces leave in one write and
 * one system call. Use only on the channel's event loop.
 */
public final class DeferredFlush {
    private final Channel channel;
    private final Runnable flushed;
    private ByteBuf pending;

    public DeferredFlush(Channel channel) {
        this(channel, () -> {
        });
    }

    /** Runs {@code flushed} after each write (for a caller that waits for its backlog to shrink). */
    public DeferredFlush(Channel channel, Runnable flushed) {
        this.channel = channel;
        this.flushed = flushed;
    }

    /**
     * Bytes queued for the channel and not yet written to its socket: those encoded in this task
     * and those Netty holds because the peer does not take them.
     */
    public long backlog() {
        var buffered = channel.unsafe().outboundBuffer();
        return (pending == null ? 0 : pending.readableBytes())
                + (buffered == null ? 0 : buffered.totalPendingWriteBytes());
    }

    /** Queues {@code msg}; it is sent when the current task ends. */
    public void write(OFMessage msg) {
        if (pending == null) {
            pending = channel.alloc().buffer(4096);
            channel.eventLoop().execute(this::flush);
        }
        msg.writeTo(pending);
    }

    /** Writes what is queued now rather than after the current task. */
    public void flushNow() {
        if (pending != null) {
            flush();
        }
    }

    private void flush() {
        ByteBuf buf = pending;
        pending = null;
        if (buf == null) {
            return;  // written already (flushNow)
        }
        if (channel.isActive()) {
            channel.writeAndFlush(buf, channel.voidPromise());
            flushed.run();
        } else {
            buf.release();
        }
    }
}
