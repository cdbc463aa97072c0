package org.uno.oneswitch.translate;

import java.util.Arrays;
import java.util.List;

import com.google.common.hash.PrimitiveSink;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.projectfloodlight.openflow.protocol.OFActionType;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.action.OFActionExperimenter;

/**
 * Open vSwitch's {@code encap}, {@code decap} and {@code clone} actions (Nicira extension
 * subtypes 46, 47 and 42), which openflowj 3.2.1 does not have. OneSwitch only writes them: an
 * entry holding one is <em>sealed</em> (openflowj's reader throws on these subtypes), so it is
 * never read back from a switch (see {@code PhysicalPlan.SEALED_COOKIE_TAG}). Equal by content.
 */
public final class OvsEncapAction implements OFActionExperimenter {
    private static final long NICIRA = 0x2320L;
    private static final int CLONE = 42;
    private static final int ENCAP = 46;
    private static final int DECAP = 47;
    /** Packet types (OpenFlow 1.5's namespace and type): Ethernet, MPLS, and "the decapsulated header's next protocol". */
    private static final int PT_ETHERNET = 0;
    private static final int PT_MPLS = 0x00018847;
    private static final int PT_NEXT = 0x0000fffe;

    private final String text;
    private final byte[] bytes;
    private final List<OFAction> nested;

    private OvsEncapAction(String text, byte[] bytes, List<OFAction> nested) {
        this.text = text;
        this.bytes = bytes;
        this.nested = nested;
    }

    /** {@code encap(mpls)}: the whole frame becomes the payload of a new MPLS label (label 0, TTL 64). */
    public static OvsEncapAction encapMpls() {
        return fixed("encap(mpls)", ENCAP, PT_MPLS);
    }

    /** {@code encap(ethernet)}: a new Ethernet header (zero addresses) with the inner packet's Ethertype. */
    public static OvsEncapAction encapEthernet() {
        return fixed("encap(ethernet)", ENCAP, PT_ETHERNET);
    }

    /** {@code decap()}: takes the outer Ethernet header off. */
    public static OvsEncapAction decap() {
        return fixed("decap()", DECAP, PT_NEXT);
    }

    /** {@code decap(packet_type(ns=0,type=0))}: takes an MPLS label off, the payload being an Ethernet frame. */
    public static OvsEncapAction decapToEthernet() {
        return fixed("decap(packet_type(ns=0,type=0))", DECAP, PT_ETHERNET);
    }

    /** {@code clone(actions)}: runs {@code actions} on a copy of the packet, leaving the packet as it was. */
    public static OvsEncapAction clone(List<OFAction> actions) {
        ByteBuf inner = Unpooled.buffer();
        actions.forEach(a -> a.writeTo(inner));
        byte[] body = new byte[inner.readableBytes()];
        inner.readBytes(body);
        ByteBuf b = header(CLONE, 16 + body.length);
        b.writeZero(6);
        b.writeBytes(body);
        // its text is the name only: RuleText renders the nested actions as it renders any others
        return new OvsEncapAction("clone", toArray(b), List.copyOf(actions));
    }

    /** The actions a {@link #clone} runs (empty for the others). */
    public List<OFAction> nested() {
        return nested;
    }

    /** As ovs-ofctl writes it (a clone: its name only; see {@link #nested}). */
    public String text() {
        return text;
    }

    private static OvsEncapAction fixed(String text, int subtype, int packetType) {
        ByteBuf b = header(subtype, 16);
        b.writeShort(0); // encap: header size "not specified"; decap: padding
        b.writeInt(packetType);
        return new OvsEncapAction(text, toArray(b), List.of());
    }

    private static ByteBuf header(int subtype, int length) {
        if (length % 8 != 0) {
            throw new IllegalArgumentException("action length " + length + " is not a multiple of 8");
        }
        ByteBuf b = Unpooled.buffer(length);
        b.writeShort(0xffff);
        b.writeShort(length);
        b.writeInt((int) NICIRA);
        b.writeShort(subtype);
        return b;
    }

    private static byte[] toArray(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    @Override
    public OFActionType getType() {
        return OFActionType.EXPERIMENTER;
    }

    @Override
    public long getExperimenter() {
        return NICIRA;
    }

    @Override
    public OFVersion getVersion() {
        return OFVersion.OF_13;
    }

    @Override
    public void writeTo(ByteBuf bb) {
        bb.writeBytes(bytes);
    }

    @Override
    public void putTo(PrimitiveSink sink) {
        sink.putBytes(bytes);
    }

    /** Not supported: these actions are built by the factories above, never changed. */
    @Override
    public OFActionExperimenter.Builder createBuilder() {
        throw new UnsupportedOperationException(text + " has no openflowj builder");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OvsEncapAction other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return text;
    }

}
