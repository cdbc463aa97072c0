package org.uno.oneswitch.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

import org.projectfloodlight.openflow.protocol.OFMessage;

/** Writes openflowj messages to the wire. Stateless, so one instance serves every channel. */
@ChannelHandler.Sharable
public final class OfMessageEncoder extends MessageToByteEncoder<OFMessage> {
    @Override
    protected void encode(ChannelHandlerContext ctx, OFMessage msg, ByteBuf out) {
        msg.writeTo(out);
    }
}
