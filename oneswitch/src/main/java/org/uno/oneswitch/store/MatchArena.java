package org.uno.oneswitch.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.projectfloodlight.openflow.exceptions.OFParseError;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFMessageReader;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.uno.oneswitch.model.FlowMatch;

/**
 * Stored rules' matches as their OXM wire bytes in a few large pages, so that a stored match is no
 * object for the collector to copy. A match is named by an int: its page and its offset there.
 *
 * <p>The pages grow from 64 KiB to just under 4 MiB; from the fourth on each is as large as a G1
 * region of 4 MiB allows with the array's header, which G1 allocates outside the young generation
 * (half a region or more), so no young collection copies it. A removed match only counts as waste: the
 * owner copies the live matches into a fresh arena once the waste passes what is live ({@link
 * #wasteful}). A match's encoding is canonical (a {@link FlowMatch} keeps canonical fields in field
 * order), so equal matches have equal bytes.
 */
final class MatchArena {
    private static final int OFFSET_BITS = 22;
    private static final int OFFSET_MASK = (1 << OFFSET_BITS) - 1;
    private static final int FIRST_PAGE = 1 << 16;
    private static final int LARGEST_PAGE = (1 << OFFSET_BITS) - 64;
    private static final int MAX_PAGES = 1 << (31 - OFFSET_BITS);
    private static final OFMessageReader<OFOxm<?>> OXMS = OFFactories.getFactory(OFVersion.OF_13).oxms().getReader();

    private byte[][] pages = new byte[0][];
    private int top;   // the next free offset in the last page
    private long live;
    private long waste;
    private final ByteBuf scratch = Unpooled.buffer(256);

    /** Stores {@code m}; returns its name. */
    int add(FlowMatch m) {
        encode(m);
        return put(scratch.array(), scratch.arrayOffset() + scratch.readerIndex(), scratch.readableBytes());
    }

    /**
     * A fresh arena with the live matches of the first {@code rows} rows (those whose {@code inUse} is not
     * null), whose names in {@code refs} are rewritten to their names there: the waste of removed matches
     * goes with this arena.
     */
    MatchArena compacted(int[] refs, Object[] inUse, int rows) {
        MatchArena fresh = new MatchArena();
        for (int s = 0; s < rows; s++) {
            if (inUse[s] != null) {
                byte[] page = pages[refs[s] >>> OFFSET_BITS];
                int at = refs[s] & OFFSET_MASK;
                refs[s] = fresh.put(page, at + 2, length(page, at));
            }
        }
        return fresh;
    }

    /** The match {@code ref}, decoded. */
    FlowMatch get(int ref) {
        byte[] page = pages[ref >>> OFFSET_BITS];
        int at = ref & OFFSET_MASK;
        ByteBuf b = Unpooled.wrappedBuffer(page, at + 2, length(page, at));
        List<OFOxm<?>> oxms = new ArrayList<>(4);
        try {
            while (b.isReadable()) {
                oxms.add(OXMS.readFrom(b));
            }
        } catch (OFParseError e) {
            throw new IllegalStateException("a stored match does not read back: " + e.getMessage(), e);
        }
        return FlowMatch.of(oxms);
    }

    /** Whether the match {@code ref} is {@code m}. */
    boolean holds(int ref, FlowMatch m) {
        encode(m);
        byte[] page = pages[ref >>> OFFSET_BITS];
        int at = ref & OFFSET_MASK;
        int length = length(page, at);
        int from = scratch.arrayOffset() + scratch.readerIndex();
        return length == scratch.readableBytes()
                && Arrays.equals(page, at + 2, at + 2 + length, scratch.array(), from, from + length);
    }

    /** The match {@code ref} is no longer needed. */
    void free(int ref) {
        int size = 2 + length(pages[ref >>> OFFSET_BITS], ref & OFFSET_MASK);
        live -= size;
        waste += size;
    }

    /** Whether more of the pages is waste than live matches (and at least a page's worth). */
    boolean wasteful() {
        return waste > live && waste > FIRST_PAGE;
    }

    private void encode(FlowMatch m) {
        scratch.clear();
        for (OFOxm<?> oxm : m.oxms()) {
            oxm.writeTo(scratch);
        }
        if (scratch.readableBytes() > 0xffff) {
            throw new IllegalArgumentException("a match of " + scratch.readableBytes() + " bytes");
        }
    }

    private int put(byte[] src, int from, int length) {
        int size = 2 + length;
        if (pages.length == 0 || top + size > pages[pages.length - 1].length) {
            newPage(size);
        }
        byte[] page = pages[pages.length - 1];
        page[top] = (byte) (length >>> 8);
        page[top + 1] = (byte) length;
        System.arraycopy(src, from, page, top + 2, length);
        int ref = (pages.length - 1) << OFFSET_BITS | top;
        top += size;
        live += size;
        return ref;
    }

    private void newPage(int atLeast) {
        if (pages.length == MAX_PAGES) {
            throw new IllegalStateException("the match arena is full (" + MAX_PAGES + " pages)");
        }
        int size = Math.max(atLeast, pages.length >= 3 ? LARGEST_PAGE : FIRST_PAGE << (2 * pages.length));
        pages = Arrays.copyOf(pages, pages.length + 1);
        pages[pages.length - 1] = new byte[size];
        top = 0;
    }

    private static int length(byte[] page, int at) {
        return (page[at] & 0xff) << 8 | page[at + 1] & 0xff;
    }
}
