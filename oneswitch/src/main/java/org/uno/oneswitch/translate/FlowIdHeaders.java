package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U32;
import org.projectfloodlight.openflow.types.U8;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.plan.PhysicalRule;

/**
 * How a flow id crosses a PCIe link without touching the tenant's headers. Open vSwitch keeps at
 * most two VLAN headers, so an 802.1ad tag pushed on a tenant's QinQ frame would push its inner
 * tag out. So the flow id travels as an MPLS label pushed after the VLAN headers, for every
 * Ethertype in {@link Layout#MPLS_ETHERTYPES}: {@code push_mpls} overwrites that Ethertype, and the
 * label's TC bits say which it was, so that the far side's {@code pop_mpls} restores it. Packets of
 * other Ethertypes (rare) carry the 802.1ad tag as before.
 *
 * <ul>
 *   <li>A tag group's bucket loads the tag and the link into registers and resubmits to the
 *       sending switch's {@link Layout#EGRESS_TABLE}, which chooses the header by Ethertype (a
 *       group cannot branch; a bucket is an action set, so it cannot push and set in order
 *       either).</li>
 *   <li>A delivery matches the label (or the tag), forwards the packet unchanged toward farther
 *       switches, then resubmits to {@link Layout#POP_TABLE}, which pops the label back to its
 *       Ethertype, and outputs to the switch's own ports.</li>
 * </ul>
 * Both headers are 4 bytes. Pure.
 */
final class FlowIdHeaders {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    /** Nicira's resubmit keeps the packet's in_port with this value (OpenFlow 1.0's IN_PORT). */
    private static final int SAME_IN_PORT = 0xfff8;
    /** Where the 12-bit tag sits in the 20-bit label (see {@link #label}). */
    private static final int LABEL_SHIFT = 4;

    private FlowIdHeaders() {
    }

    /** The bucket actions of tag {@code tag}'s group toward {@code link}. */
    static List<Action> sendActions(int tag, OFPort link) {
        return List.of(other(OF13.actions().setField(OF13.oxms().reg6(U32.of(tag)))),
                other(OF13.actions().setField(OF13.oxms().reg5(U32.of(link.getPortNumber())))),
                resubmit(Layout.EGRESS_TABLE));
    }

    /**
     * The label of flow id {@code tag}: the tag shifted past the labels 0-15, which MPLS reserves
     * (explicit null, router alert, ...) and a hardware switch may treat apart.
     */
    static int label(int tag) {
        return tag << LABEL_SHIFT;
    }

    /** The match of packets arriving on {@code link} with flow id {@code tag} as an MPLS label. */
    static FlowMatch labelled(OFPort link, int tag) {
        return FlowMatch.of(List.of(OF13.oxms().inPort(link), OF13.oxms().ethType(EthType.MPLS_UNICAST),
                OF13.oxms().mplsLabel(U32.of(label(tag)))));
    }

    /** The action that takes the MPLS flow-id label off an arrived packet (see {@link Layout#POP_TABLE}). */
    static Action popLabel() {
        return resubmit(Layout.POP_TABLE);
    }

    /**
     * The egress and pop tables of switch {@code switchId} with PCIe links {@code links}: per link,
     * an entry per known Ethertype that pushes the label and one that pushes the tag; per code, a
     * pop entry.
     */
    static List<PhysicalRule> tables(String switchId, List<OFPort> links) {
        List<PhysicalRule> out = new ArrayList<>();
        if (links.isEmpty()) {
            return out;
        }
        for (OFPort link : links) {
            for (int code = 0; code < Layout.MPLS_ETHERTYPES.size(); code++) {
                out.add(rule(switchId, Layout.EGRESS_TABLE, 2, FlowMatch.of(List.of(
                        OF13.oxms().reg5(U32.of(link.getPortNumber())),
                        OF13.oxms().ethType(EthType.of(Layout.MPLS_ETHERTYPES.get(code))))), List.of(
                        other(OF13.actions().pushMpls(EthType.MPLS_UNICAST)),
                        other(OF13.actions().setField(OF13.oxms().mplsTc(U8.of((short) code)))),
                        // push_mpls starts from 0 (IPv4), 2 (IPv6) or a copy of the outer label: clear it first
                        other(OF13.actions().setField(OF13.oxms().mplsLabel(U32.of(0)))),
                        move(12, Layout.OXM_MPLS_LABEL, LABEL_SHIFT), Action.Output.to(link))));
            }
            out.add(rule(switchId, Layout.EGRESS_TABLE, 1, FlowMatch.of(List.of(
                    OF13.oxms().reg5(U32.of(link.getPortNumber())))), List.of(TagRoutes.pushTag(), move(12, Layout.OXM_VLAN_VID, 0),
                    Action.Output.to(link))));
        }
        for (int code = 0; code < Layout.MPLS_ETHERTYPES.size(); code++) {
            out.add(rule(switchId, Layout.POP_TABLE, 1, FlowMatch.of(List.of(
                    OF13.oxms().ethType(EthType.MPLS_UNICAST), OF13.oxms().mplsTc(U8.of((short) code)))), List.of(
                    other(OF13.actions().popMpls(EthType.of(Layout.MPLS_ETHERTYPES.get(code)))))));
        }
        return out;
    }

    private static PhysicalRule rule(String switchId, int table, int priority, FlowMatch match, List<Action> actions) {
        return new PhysicalRule(switchId, new RuleKey(table, priority, match),
                List.of(new Instruction.ApplyActions(actions)), PhysicalRule.Role.INFRASTRUCTURE, 0);
    }

    /** Copies the tag's {@code bits} bits from the tag register into header field {@code dst} from bit {@code dstOfs}. */
    private static Action move(int bits, long dst, int dstOfs) {
        return other(OF13.actions().buildNiciraMove().setNBits(bits).setSrcOfs(0).setDstOfs(dstOfs).setSrc(Layout.OXM_REG6)
                .setDst(dst).build());
    }

    private static Action resubmit(int table) {
        return other(OF13.actions().niciraResubmitTable(SAME_IN_PORT, (short) table));
    }

    private static Action other(org.projectfloodlight.openflow.protocol.action.OFAction a) {
        return new Action.Other(a);
    }
}
