package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U32;
import org.projectfloodlight.openflow.types.U64;
import org.projectfloodlight.openflow.types.U8;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.plan.PhysicalRule;

/**
 * How a flow id crosses a PCIe link without touching the tenant's headers. Open vSwitch keeps at
 * most two VLAN headers, so a VLAN tag pushed on a tenant's QinQ frame would push its inner tag
 * out. So the flow id travels as an MPLS label (the tag itself, see {@link #label}):
 *
 * <ul>
 *   <li>pushed after the VLAN headers, for every Ethertype in {@link Layout#MPLS_ETHERTYPES}:
 *       {@code push_mpls} overwrites that Ethertype, and the label's TC bits say which it was, so
 *       that the far side's {@code pop_mpls} restores it (4 bytes);</li>
 *   <li>around the whole frame for any other Ethertype ({@code encap(mpls)}, then
 *       {@code encap(ethernet)}, TC {@link Layout#ENCAP_CODE}; 18 bytes): {@code pop_mpls} needs
 *       the Ethertype as a constant, {@code decap} does not. The far side decapsulates, keeps the
 *       label in the tunnel id, and looks the frame up again in the dispatch table.</li>
 * </ul>
 * A tag group's bucket loads the tag and the link into registers and resubmits to the sending
 * switch's {@link Layout#EGRESS_TABLE}, which chooses the header by Ethertype (a group cannot
 * branch; a bucket is an action set, so it cannot push and set in order either). A delivery
 * matches the label (or, decapsulated, the tunnel id), forwards the packet toward farther switches,
 * takes the header off and outputs to the switch's own ports. The encapsulating and decapsulating
 * entries are sealed: openflowj cannot read them back (see {@link SealedAction}). Pure.
 */
final class FlowIdHeaders {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    /** Nicira's resubmit keeps the packet's in_port with this value (OpenFlow 1.0's IN_PORT). */
    private static final int SAME_IN_PORT = 0xfff8;
    private static final int LABEL_BITS = 20;

    private FlowIdHeaders() {
    }

    /** The bucket actions of tag {@code tag}'s group toward {@code link}. */
    static List<Action> sendActions(int tag, OFPort link) {
        return List.of(other(OF13.actions().setField(OF13.oxms().reg6(U32.of(tag)))),
                other(OF13.actions().setField(OF13.oxms().reg5(U32.of(link.getPortNumber())))),
                resubmit(Layout.EGRESS_TABLE));
    }

    /**
     * The label of flow id {@code tag}: the tag itself, as tags start past the labels 0-15, which
     * MPLS reserves (explicit null, router alert, ...) and a hardware switch may treat apart.
     */
    static int label(int tag) {
        return tag;
    }

    /** The match of packets arriving on {@code link} with flow id {@code tag} as an MPLS label. */
    static FlowMatch labelled(OFPort link, int tag) {
        return FlowMatch.of(List.of(OF13.oxms().inPort(link), OF13.oxms().ethType(EthType.MPLS_UNICAST),
                OF13.oxms().mplsLabel(U32.of(label(tag)))));
    }

    /**
     * The match of packets that arrived on {@code link} encapsulated with flow id {@code tag}, once
     * decapsulated: the label is in the tunnel id.
     */
    static FlowMatch decapsulated(OFPort link, int tag) {
        return FlowMatch.of(List.of(OF13.oxms().inPort(link), OF13.oxms().tunnelId(U64.of(label(tag)))));
    }

    /** The action that takes the MPLS flow-id label off an arrived packet (see {@link Layout#POP_TABLE}). */
    static Action popLabel() {
        return resubmit(Layout.POP_TABLE);
    }

    /**
     * The flow-id entries of switch {@code switchId} with PCIe links {@code links}: per link, in the
     * egress table an entry per coded Ethertype that pushes the label and one that encapsulates,
     * and in the dispatch table one that decapsulates; the entry of {@link Layout#CLEAR_TABLE};
     * per code, a pop entry.
     */
    static List<PhysicalRule> tables(String switchId, List<OFPort> links) {
        List<PhysicalRule> out = new ArrayList<>();
        if (links.isEmpty()) {
            return out;
        }
        for (OFPort link : links) {
            FlowMatch viaLink = FlowMatch.of(List.of(OF13.oxms().reg5(U32.of(link.getPortNumber()))));
            for (int code = 0; code < Layout.MPLS_ETHERTYPES.size(); code++) {
                out.add(rule(switchId, Layout.EGRESS_TABLE, 2, viaLink.with(
                        OF13.oxms().ethType(EthType.of(Layout.MPLS_ETHERTYPES.get(code)))), List.of(
                        other(OF13.actions().pushMpls(EthType.MPLS_UNICAST)),
                        other(OF13.actions().setField(OF13.oxms().mplsTc(U8.of((short) code)))),
                        // the move writes all 20 bits of the label push_mpls made (0, 2 or the outer label)
                        other(moveTag()), Action.Output.to(link))));
            }
            // In a clone, so that the actions after the tag group see the frame as it was (Open vSwitch cannot
            // undo an encap when it rolls a group bucket back). Open vSwitch 3.1 executes a copy of the action set
            // at the end of a clone: the clone empties it last (CLEAR_TABLE).
            List<OFAction> encap = new ArrayList<>(encapsulation(link));
            encap.add(resubmitTo(Layout.CLEAR_TABLE));
            out.add(rule(switchId, Layout.EGRESS_TABLE, 1, viaLink, List.of(other(SealedAction.clone(encap)))));
            out.add(rule(switchId, Layout.DISPATCH_TABLE, Layout.ENCAP_PRIORITY, FlowMatch.of(List.of(
                    OF13.oxms().inPort(link), OF13.oxms().ethType(EthType.MPLS_UNICAST),
                    OF13.oxms().mplsTc(U8.of((short) Layout.ENCAP_CODE)))), List.of(
                    other(OF13.actions().buildNiciraMove().setNBits(LABEL_BITS).setSrcOfs(0).setDstOfs(0)
                            .setSrc(Layout.OXM_MPLS_LABEL).setDst(Layout.OXM_TUNNEL_ID).build()),
                    other(SealedAction.decap()), other(SealedAction.decapToEthernet()),
                    resubmit(Layout.DISPATCH_TABLE))));
        }
        out.add(new PhysicalRule(switchId, new RuleKey(Layout.CLEAR_TABLE, 1, FlowMatch.ANY),
                List.of(new Instruction.ClearActions()), PhysicalRule.Role.INFRASTRUCTURE, 0));
        for (int code = 0; code < Layout.MPLS_ETHERTYPES.size(); code++) {
            out.add(rule(switchId, Layout.POP_TABLE, 1, FlowMatch.of(List.of(
                    OF13.oxms().ethType(EthType.MPLS_UNICAST), OF13.oxms().mplsTc(U8.of((short) code)))), List.of(
                    other(OF13.actions().popMpls(EthType.of(Layout.MPLS_ETHERTYPES.get(code)))))));
        }
        return out;
    }

    /**
     * The actions that send the whole frame, encapsulated with flow id {@code tag}, over {@code link}, as the
     * last thing an entry does.
     */
    static List<Action> encapsulated(int tag, OFPort link) {
        List<Action> out = new ArrayList<>(List.of(other(OF13.actions().setField(OF13.oxms().reg6(U32.of(tag))))));
        encapsulation(link).forEach(a -> out.add(other(a)));
        return out;
    }

    /** Encapsulates the frame in an MPLS label holding the tag register, then in Ethernet, and outputs it to {@code link}. */
    private static List<OFAction> encapsulation(OFPort link) {
        return List.of(SealedAction.encapMpls(),
                OF13.actions().setField(OF13.oxms().mplsTc(U8.of((short) Layout.ENCAP_CODE))),
                moveTag(), SealedAction.encapEthernet(), OF13.actions().output(link, 0));
    }

    private static PhysicalRule rule(String switchId, int table, int priority, FlowMatch match, List<Action> actions) {
        return new PhysicalRule(switchId, new RuleKey(table, priority, match),
                List.of(new Instruction.ApplyActions(actions)), PhysicalRule.Role.INFRASTRUCTURE, 0);
    }

    /** Copies the tag from the tag register into the label. */
    private static OFAction moveTag() {
        return OF13.actions().buildNiciraMove().setNBits(LABEL_BITS).setSrcOfs(0).setDstOfs(0)
                .setSrc(Layout.OXM_REG6).setDst(Layout.OXM_MPLS_LABEL).build();
    }

    static Action resubmit(int table) {
        return other(resubmitTo(table));
    }

    static OFAction resubmitTo(int table) {
        return OF13.actions().niciraResubmitTable(SAME_IN_PORT, (short) table);
    }

    private static Action other(OFAction a) {
        return new Action.Other(a);
    }
}
