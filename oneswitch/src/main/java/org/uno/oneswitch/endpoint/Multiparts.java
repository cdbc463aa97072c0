package org.uno.oneswitch.endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReplyFlags;
import org.projectfloodlight.openflow.protocol.Writeable;

/**
 * Splits the entries of a multipart reply over as many messages as the 16-bit OpenFlow length
 * needs, every message but the last flagged REPLY_MORE.
 */
final class Multiparts {
    /** Room for entries in one message: 65535 minus the multipart header, with a margin. */
    static final int BODY_LIMIT = 65_000;

    private Multiparts() {
    }

    /**
     * The reply messages for {@code entries}; {@code build} makes one message from a chunk and its
     * flags (an empty list still gives one message).
     */
    static <E extends Writeable> List<OFStatsReply> replies(List<E> entries,
                                                            BiFunction<List<E>, Set<OFStatsReplyFlags>, OFStatsReply> build) {
        List<List<E>> chunks = chunks(entries);
        List<OFStatsReply> out = new ArrayList<>(chunks.size());
        for (int i = 0; i < chunks.size(); i++) {
            Set<OFStatsReplyFlags> flags = i < chunks.size() - 1 ? Set.of(OFStatsReplyFlags.REPLY_MORE) : Set.of();
            out.add(build.apply(chunks.get(i), flags));
        }
        return out;
    }

    static <E extends Writeable> List<List<E>> chunks(List<E> entries) {
        List<List<E>> chunks = new ArrayList<>();
        List<E> current = new ArrayList<>();
        int size = 0;
        ByteBuf scratch = Unpooled.buffer(1024);
        for (E e : entries) {
            scratch.clear();
            e.writeTo(scratch);
            int n = scratch.readableBytes();
            if (size + n > BODY_LIMIT && !current.isEmpty()) {
                chunks.add(current);
                current = new ArrayList<>();
                size = 0;
            }
            current.add(e);
            size += n;
        }
        chunks.add(current);
        return chunks;
    }
}
