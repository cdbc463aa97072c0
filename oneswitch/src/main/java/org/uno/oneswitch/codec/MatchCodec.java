package org.uno.oneswitch.codec;

import static org.projectfloodlight.openflow.protocol.match.MatchFields.*;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFBadMatchCode;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMatchV3;
import org.projectfloodlight.openflow.protocol.OFOxmList;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.protocol.match.MatchFields;
import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.IpProtocol;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.OFValueType;
import org.projectfloodlight.openflow.types.OFVlanVidMatch;
import org.projectfloodlight.openflow.types.U32;
import org.projectfloodlight.openflow.types.U8;
import org.uno.oneswitch.error.BadMatchException;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.PortNumbers;

/**
 * Converts between openflowj matches and {@link FlowMatch}, refusing (with the OpenFlow 1.3 error
 * a switch gives) fields OneSwitch does not handle, masks on unmaskable fields, values with bits
 * outside their mask, and missing prerequisites.
 */
public final class MatchCodec {
    /** The OpenFlow 1.3 basic fields OneSwitch accepts. */
    static final Set<MatchFields> SUPPORTED = EnumSet.of(IN_PORT, IN_PHY_PORT, METADATA, ETH_DST, ETH_SRC,
            ETH_TYPE, VLAN_VID, VLAN_PCP, IP_DSCP, IP_ECN, IP_PROTO, IPV4_SRC, IPV4_DST, TCP_SRC, TCP_DST, UDP_SRC,
            UDP_DST, SCTP_SRC, SCTP_DST, ICMPV4_TYPE, ICMPV4_CODE, ARP_OP, ARP_SPA, ARP_TPA, ARP_SHA, ARP_THA,
            IPV6_SRC, IPV6_DST, IPV6_FLABEL, ICMPV6_TYPE, ICMPV6_CODE, IPV6_ND_TARGET, IPV6_ND_SLL, IPV6_ND_TLL,
            MPLS_LABEL, MPLS_TC, MPLS_BOS, TUNNEL_ID, IPV6_EXTHDR);

    /** The fields OpenFlow 1.3 allows a mask on. */
    static final Set<MatchFields> MASKABLE = EnumSet.of(METADATA, ETH_DST, ETH_SRC, VLAN_VID, IPV4_SRC, IPV4_DST,
            ARP_SPA, ARP_TPA, ARP_SHA, ARP_THA, IPV6_SRC, IPV6_DST, IPV6_FLABEL, TUNNEL_ID, IPV6_EXTHDR);

    private static final Set<MatchFields> IPV4_FIELDS = EnumSet.of(IPV4_SRC, IPV4_DST);
    private static final Set<MatchFields> IP_FIELDS = EnumSet.of(IP_DSCP, IP_ECN, IP_PROTO);
    private static final Set<MatchFields> IPV6_ONLY = EnumSet.of(IPV6_SRC, IPV6_DST, IPV6_FLABEL, IPV6_EXTHDR);
    private static final Set<MatchFields> ARP_FIELDS = EnumSet.of(ARP_OP, ARP_SPA, ARP_TPA, ARP_SHA, ARP_THA);
    private static final Set<MatchFields> MPLS_FIELDS = EnumSet.of(MPLS_LABEL, MPLS_TC, MPLS_BOS);

    private MatchCodec() {
    }

    /** The fields OneSwitch accepts in matches. */
    public static Set<MatchFields> supportedFields() {
        return EnumSet.copyOf(SUPPORTED);
    }

    /** The fields set_field may write. */
    public static Set<MatchFields> settableFields() {
        Set<MatchFields> s = EnumSet.copyOf(SUPPORTED);
        s.removeAll(EnumSet.of(IN_PORT, IN_PHY_PORT, METADATA));
        return s;
    }

    /** The match of a request, validated. */
    public static FlowMatch decode(Match match) throws BadMatchException {
        if (!(match instanceof OFMatchV3 v3)) {
            throw new BadMatchException(OFBadMatchCode.BAD_TYPE, "only OXM matches are supported");
        }
        for (OFOxm<?> oxm : v3.getOxmList()) {
            checkField(oxm);
        }
        FlowMatch m = FlowMatch.of(v3.getOxmList());
        checkPrerequisites(m);
        return m;
    }

    /** The openflowj match for {@code m}. */
    public static Match encode(FlowMatch m, OFFactory factory) {
        return factory.buildMatchV3().setOxmList(OFOxmList.ofList(m.oxms())).build();
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    static void checkField(OFOxm<?> oxm) throws BadMatchException {
        MatchFields f = oxm.getMatchField().id;
        if (!SUPPORTED.contains(f)) {
            throw new BadMatchException(OFBadMatchCode.BAD_FIELD, "match field " + f + " is not supported");
        }
        if ((f == IN_PORT || f == IN_PHY_PORT) && !PortNumbers.valid((OFPort) oxm.getValue())) {
            throw new BadMatchException(OFBadMatchCode.BAD_VALUE, "match field " + f + " = " + oxm.getValue()
                    + " (ports are 1 to " + PortNumbers.MAX + " and the reserved ones)");
        }
        if (oxm.isMasked()) {
            if (!MASKABLE.contains(f)) {
                throw new BadMatchException(OFBadMatchCode.BAD_MASK, "match field " + f + " cannot be masked");
            }
            OFValueType value = oxm.getValue();
            if (!value.applyMask(oxm.getMask()).equals(value)) {
                throw new BadMatchException(OFBadMatchCode.BAD_WILDCARDS,
                        "match field " + f + " has value bits outside its mask");
            }
        }
    }

    /** Throws BAD_PREREQ when a field is used without the fields it depends on (OpenFlow 1.3 §7.2.3.6). */
    public static void checkPrerequisites(FlowMatch m) throws BadMatchException {
        for (MatchFields f : m.fieldTypes()) {
            checkPrerequisite(m, f);
        }
    }

    /** Throws BAD_PREREQ when {@code m} does not provide the prerequisites of field {@code f}. */
    public static void checkPrerequisite(FlowMatch m, MatchFields f) throws BadMatchException {
        if (IPV4_FIELDS.contains(f) || f == ICMPV4_TYPE || f == ICMPV4_CODE) {
            requireEthType(m, f, EthType.IPv4);
        } else if (IP_FIELDS.contains(f)) {
            requireEthType(m, f, EthType.IPv4, EthType.IPv6);
        } else if (IPV6_ONLY.contains(f) || f == ICMPV6_TYPE || f == ICMPV6_CODE) {
            requireEthType(m, f, EthType.IPv6);
        } else if (ARP_FIELDS.contains(f)) {
            requireEthType(m, f, EthType.ARP);
        } else if (MPLS_FIELDS.contains(f)) {
            requireEthType(m, f, EthType.MPLS_UNICAST, EthType.MPLS_MULTICAST);
        } else if (f == VLAN_PCP) {
            Optional<OFOxm<?>> vid = m.get(VLAN_VID);
            if (vid.isEmpty() || !((OFVlanVidMatch) vid.get().getValue()).isPresentBitSet()) {
                throw prereq(f, "a VLAN tag (vlan_vid with the present bit)");
            }
        }
        checkTransport(m, f);
    }

    private static void checkTransport(FlowMatch m, MatchFields f) throws BadMatchException {
        IpProtocol proto = switch (f) {
            case TCP_SRC, TCP_DST -> IpProtocol.TCP;
            case UDP_SRC, UDP_DST -> IpProtocol.UDP;
            case SCTP_SRC, SCTP_DST -> IpProtocol.SCTP;
            case ICMPV4_TYPE, ICMPV4_CODE -> IpProtocol.ICMP;
            case ICMPV6_TYPE, ICMPV6_CODE, IPV6_ND_TARGET, IPV6_ND_SLL, IPV6_ND_TLL -> IpProtocol.IPv6_ICMP;
            default -> null;
        };
        if (proto == null) {
            return;
        }
        Optional<OFOxm<?>> p = m.get(IP_PROTO);
        if (p.isEmpty() || !p.get().getValue().equals(proto)) {
            throw prereq(f, "ip_proto=" + proto.getIpProtocolNumber());
        }
        requireEthType(m, f, EthType.IPv4, EthType.IPv6);
        if (f == IPV6_ND_TARGET || f == IPV6_ND_SLL || f == IPV6_ND_TLL) {
            Optional<OFOxm<?>> type = m.get(ICMPV6_TYPE);
            short t = type.isEmpty() ? -1 : ((U8) type.get().getValue()).getValue();
            boolean ok = f == IPV6_ND_SLL ? t == 135 : f == IPV6_ND_TLL ? t == 136 : t == 135 || t == 136;
            if (!ok) {
                throw prereq(f, "icmpv6_type of neighbour discovery");
            }
        }
    }

    private static void requireEthType(FlowMatch m, MatchFields f, EthType... allowed) throws BadMatchException {
        Optional<OFOxm<?>> et = m.get(ETH_TYPE);
        if (et.isPresent()) {
            for (EthType t : allowed) {
                if (et.get().getValue().equals(t)) {
                    return;
                }
            }
        }
        throw prereq(f, "eth_type " + java.util.Arrays.toString(allowed));
    }

    private static BadMatchException prereq(MatchFields f, String needed) {
        return new BadMatchException(OFBadMatchCode.BAD_PREREQ, "match field " + f + " needs " + needed);
    }

    /** The OXM headers (type and length) of {@code fields}, taken from openflowj's encoding of each. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    public static List<U32> oxmHeaders(OFFactory f, Set<MatchFields> fields) {
        List<U32> out = new ArrayList<>();
        for (Field decl : MatchField.class.getFields()) {
            if (!Modifier.isStatic(decl.getModifiers()) || decl.getType() != MatchField.class) {
                continue;
            }
            try {
                MatchField mf = (MatchField) decl.get(null);
                if (!fields.contains(mf.id)) {
                    continue;
                }
                Class<?> valueType = (Class<?>) ((ParameterizedType) decl.getGenericType()).getActualTypeArguments()[0];
                OFValueType sample = (OFValueType) valueType.getField("FULL_MASK").get(null);
                out.add(U32.of(f.oxms().fromValue(sample, mf).getTypeLen()));
            } catch (ReflectiveOperationException | ClassCastException e) {
                throw new IllegalStateException("cannot describe match field " + decl.getName(), e);
            }
        }
        return out;
    }
}
