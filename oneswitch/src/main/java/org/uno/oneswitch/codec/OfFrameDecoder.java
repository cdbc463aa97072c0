package org.uno.oneswitch.codec;

import java.util.List;
import java.util.Optional;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import org.projectfloodlight.openflow.exceptions.OFParseError;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMessageReader;
import org.projectfloodlight.openflow.protocol.OFVersion;

/**
 * Splits an OpenFlow byte stream into messages by the header's length field and decodes each with
 * openflowj. A frame that does not decode becomes an {@link Undecodable} for the connection to
 * answer; a length below the header size cannot be framed at all, so it is reported as fatal and
 * everything after it is discarded. Never throws on input: whatever the peer sends, the worst
 * outcome is this one connection closing.
 */
public final class OfFrameDecoder extends ByteToMessageDecoder {
    private boolean broken;

    /** Size of the OpenFlow header. */
    public static final int HEADER = 8;
    private static final int HEAD_BYTES = 64;
    private static final OFMessageReader<OFMessage> READER = OFFactories.getGenericReader();
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    private static final int GET_ASYNC_REQUEST = 26;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (broken) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < HEADER) {
            return;
        }
        int start = in.readerIndex();
        int length = in.getUnsignedShort(start + 2);
        if (length < HEADER) {
            out.add(new Undecodable(in.getUnsignedByte(start), in.getUnsignedByte(start + 1),
                    in.getUnsignedInt(start + 4), ByteBufUtil.getBytes(in, start, HEADER), "length " + length
                    + " shorter than the OpenFlow header", true, false));
            in.skipBytes(in.readableBytes());
            broken = true;
            return;
        }
        if (in.readableBytes() < length) {
            return;
        }
        ByteBuf frame = in.readSlice(length);
        out.add(decodeFrame(frame));
    }

    /** The message in {@code frame} (exactly one OpenFlow message), or why it is not one. */
    static Object decodeFrame(ByteBuf frame) {
        int start = frame.readerIndex();
        int length = frame.readableBytes();
        if (length == HEADER && frame.getUnsignedByte(start) == OF13.getVersion().getWireVersion()
                && frame.getUnsignedByte(start + 1) == GET_ASYNC_REQUEST) {
            // OpenFlow 1.3's GET_ASYNC_REQUEST is a bare header (os-ken sends it so, Open vSwitch takes it);
            // openflowj 3.2.1 reads the request with the reply's three mask pairs and refuses it as too short.
            return OF13.buildAsyncGetRequest().setXid(frame.getUnsignedInt(start + 4)).build();
        }
        try {
            OFMessage msg = READER.readFrom(frame);
            if (msg != null && frame.readerIndex() - start == length) {
                return msg;
            }
            return undecodable(frame, start, length, msg == null ? "message shorter than its type needs"
                    : "message length does not match its content");
        } catch (OFParseError | RuntimeException e) {
            return undecodable(frame, start, length, String.valueOf(e.getMessage()));
        }
    }

    private static Undecodable undecodable(ByteBuf frame, int start, int length, String reason) {
        Optional<String> field = MatchProbe.unsupportedField(frame, start, length);
        return new Undecodable(frame.getUnsignedByte(start), frame.getUnsignedByte(start + 1),
                frame.getUnsignedInt(start + 4), ByteBufUtil.getBytes(frame, start, Math.min(length, HEAD_BYTES)),
                field.map(f -> "match field " + f + " is not supported").orElse(reason), false, field.isPresent());
    }
}
