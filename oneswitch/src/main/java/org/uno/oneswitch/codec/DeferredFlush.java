package org.uno.oneswitch.codec;

import io.netty.channel.Channel;

/**
 * Writes to a channel and flushes once after the current event-loop task, so that the many
 * messages one batch of input produces leave in as few system calls as possible. Use only on the
 * channel's event loop.
 */
public final class DeferredFlush {
    private final Channel channel;
    private boolean scheduled;

    public DeferredFlush(Channel channel) {
        this.channel = channel;
    }

    /** Queues {@code msg}; it is flushed when the current task ends. */
    public void write(Object msg) {
        channel.write(msg, channel.voidPromise());
        if (!scheduled) {
            scheduled = true;
            channel.eventLoop().execute(() -> {
                scheduled = false;
                channel.flush();
            });
        }
    }
}
