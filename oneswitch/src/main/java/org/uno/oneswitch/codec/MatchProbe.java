package org.uno.oneswitch.codec;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import io.netty.buffer.ByteBuf;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.U32;

/**
 * Looks into the match of a FLOW_MOD that did not decode for a field OneSwitch does not support: a
 * field openflowj cannot read (pbb_isid, an experimenter field) makes the whole message
 * undecodable, but the controller should hear BAD_MATCH/BAD_FIELD, as Open vSwitch answers, not
 * that the message was malformed.
 */
final class MatchProbe {
    private static final int FLOW_MOD = 14;
    /** Where ofp_match starts in an OpenFlow 1.3 FLOW_MOD, and the size of its header and of an OXM header. */
    private static final int MATCH_OFFSET = 48;
    private static final int MATCH_HEADER = 4;
    private static final int OXM_HEADER = 4;
    private static final int OXM_TYPE = 1;
    /** Class and field (the OXM header's top 23 bits) of every field OneSwitch matches on. */
    private static final Set<Integer> SUPPORTED = new HashSet<>();

    static {
        for (U32 h : MatchCodec.oxmHeaders(OFFactories.getFactory(OFVersion.OF_13), MatchCodec.supportedFields())) {
            SUPPORTED.add((int) (h.getValue() >>> 9));
        }
    }

    private MatchProbe() {
    }

    /** The first unsupported field of {@code frame}'s match (a whole FLOW_MOD from {@code start}), if any. */
    static Optional<String> unsupportedField(ByteBuf frame, int start, int length) {
        if (frame.getUnsignedByte(start + 1) != FLOW_MOD || length < MATCH_OFFSET + MATCH_HEADER
                || frame.getUnsignedShort(start + MATCH_OFFSET) != OXM_TYPE) {
            return Optional.empty();
        }
        int end = start + Math.min(length, MATCH_OFFSET + frame.getUnsignedShort(start + MATCH_OFFSET + 2));
        for (int at = start + MATCH_OFFSET + MATCH_HEADER; at + OXM_HEADER <= end; ) {
            long header = frame.getUnsignedInt(at);
            if (!SUPPORTED.contains((int) (header >>> 9))) {
                return Optional.of(String.format("OXM class 0x%04x field %d", header >>> 16, (header >>> 9) & 0x7f));
            }
            at += OXM_HEADER + (int) (header & 0xff);
        }
        return Optional.empty();
    }
}
