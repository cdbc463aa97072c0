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
 * Open vSwitch's {@code encap}, {@code decap}, {@code clone} and {@code learn} actions (Nicira
 * extension subtypes 46, 47, 42 and 16), which openflowj 3.2.1 does not have. OneSwitch only
 * writes them: an entry holding one is <em>sealed</em> (openflowj's reader throws on these
 * subtypes), so it is never read back from a switch (see {@code PhysicalPlan.SEALED_COOKIE_TAG}).
 * Equal by content.
 */
public final class SealedAction implements OFActionExperimenter {
    private static final long NICIRA = 0x2320L;
    private static final int CLONE = 42;
    private static final int ENCAP = 46;
    private static final int DECAP = 47;
    private static final int LEARN = 16;
    /** A learn action's fixed part (nx_action_learn) and one field-to-field spec (a 16-bit header, two fields and offsets). */
    private static final int LEARN_HEADER = 32;
    private static final int LEARN_SPEC = 14;
    /** Packet types (OpenFlow 1.5's namespace and type): Ethernet, MPLS, and "the decapsulated header's next protocol". */
    private static final int PT_ETHERNET = 0;
    private static final int PT_MPLS = 0x00018847;
    private static final int PT_NEXT = 0x0000fffe;

    private final String text;
    private final byte[] bytes;
    private final List<OFAction> nested;

    private SealedAction(String text, byte[] bytes, List<OFAction> nested) {
        this.text = text;
        this.bytes = bytes;
        this.nested = nested;
    }

    /** {@code encap(mpls)}: the whole frame becomes the payload of a new MPLS label (label 0, TTL 64). */
    public static SealedAction encapMpls() {
        return fixed("encap(mpls)", ENCAP, PT_MPLS);
    }

    /** {@code encap(ethernet)}: a new Ethernet header (zero addresses) with the inner packet's Ethertype. */
    public static SealedAction encapEthernet() {
        return fixed("encap(ethernet)", ENCAP, PT_ETHERNET);
    }

    /** {@code decap()}: takes the outer Ethernet header off. */
    public static SealedAction decap() {
        return fixed("decap()", DECAP, PT_NEXT);
    }

    /** {@code decap(packet_type(ns=0,type=0))}: takes an MPLS label off, the payload being an Ethernet frame. */
    public static SealedAction decapToEthernet() {
        return fixed("decap(packet_type(ns=0,type=0))", DECAP, PT_ETHERNET);
    }

    /** {@code clone(actions)}: runs {@code actions} on a copy of the packet, leaving the packet as it was. */
    public static SealedAction clone(List<OFAction> actions) {
        ByteBuf inner = Unpooled.buffer();
        actions.forEach(a -> a.writeTo(inner));
        byte[] body = new byte[inner.readableBytes()];
        inner.readBytes(body);
        ByteBuf b = header(CLONE, 16 + body.length);
        b.writeZero(6);
        b.writeBytes(body);
        // its text is the name only: RuleText renders the nested actions as it renders any others
        return new SealedAction("clone", toArray(b), List.copyOf(actions));
    }

    /**
     * One flow_mod_spec of a learn action: {@code nBits} of field {@code src} of the packet (from
     * bit {@code srcOfs}) become, in the learned flow, a match on field {@code dst} (from
     * {@code dstOfs}), or with {@code load} an action loading them into it. Fields are NXM/OXM headers.
     */
    public record LearnSpec(boolean load, long src, int srcOfs, long dst, int dstOfs, int nBits) {
        public LearnSpec {
            if (nBits < 1 || nBits > 0x3ff) {
                throw new IllegalArgumentException("a learn spec copies 1..1023 bits, not " + nBits);
            }
        }
    }

    /**
     * {@code learn(...)}: adds (or refreshes, timeouts included) a flow in {@code table} built from
     * the packet by {@code specs}, with no idle timeout; {@code text} is how ovs-ofctl would show it.
     */
    public static SealedAction learn(String text, int table, int priority, int hardTimeout, long cookie,
                                     List<LearnSpec> specs) {
        int length = (LEARN_HEADER + LEARN_SPEC * specs.size() + 7) / 8 * 8;
        ByteBuf b = header(LEARN, length);
        b.writeShort(0); // idle timeout
        b.writeShort(hardTimeout);
        b.writeShort(priority);
        b.writeLong(cookie);
        b.writeShort(0); // flags
        b.writeByte(table);
        b.writeZero(5); // pad, FIN idle and hard timeouts
        for (LearnSpec s : specs) {
            // source: a field (bit 13 clear); destination: a match (bits 11-12 zero) or a load (bit 11)
            b.writeShort((s.load() ? 1 << 11 : 0) | s.nBits());
            b.writeInt((int) s.src());
            b.writeShort(s.srcOfs());
            b.writeInt((int) s.dst());
            b.writeShort(s.dstOfs());
        }
        b.writeZero(length - b.writerIndex()); // a zero spec header ends the specs
        return new SealedAction(text, toArray(b), List.of());
    }

    /** The actions a {@link #clone} runs (empty for the others). */
    public List<OFAction> nested() {
        return nested;
    }

    /** As ovs-ofctl writes it (a clone: its name only; see {@link #nested}). */
    public String text() {
        return text;
    }

    private static SealedAction fixed(String text, int subtype, int packetType) {
        ByteBuf b = header(subtype, 16);
        b.writeShort(0); // encap: header size "not specified"; decap: padding
        b.writeInt(packetType);
        return new SealedAction(text, toArray(b), List.of());
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
        return o instanceof SealedAction other && Arrays.equals(bytes, other.bytes);
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
