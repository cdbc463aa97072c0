package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U32;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalRule;

/**
 * The virtual switch's NORMAL: one MAC-learning switch across the physical switches, as one Open
 * vSwitch bridge whose ports are all trunks does it. The packet's pipeline runs where it entered,
 * so NORMAL runs there too, through that switch's tables ({@link Layout#NORMAL_TABLE} on):
 *
 * <ol>
 *   <li>frames to a reserved multicast address (STP, pause, LACP, Cisco's, as Open vSwitch's
 *       {@code eth_addr_is_reserved}) are dropped; otherwise the ingress port's code goes in a
 *       register;</li>
 *   <li>a unicast source is learned into the MAC table ({@code learn}, keyed by VLAN id and
 *       address, refreshed by every packet from it, aged after {@link #MAC_AGING_S} as Open
 *       vSwitch's default {@code mac-aging-time});</li>
 *   <li>when the source is new or has moved, a <em>notice</em> goes over every PCIe link: a copy of
 *       the frame with an MPLS-multicast label holding the port, from which the other switches
 *       learn the same entry (and which they pass on), so that each switch's MAC table is the one
 *       table of one bridge. Whether to notify is told by a second learned table, the port each
 *       source was last announced on; it forgets after {@link #NOTICE_INTERVAL_S}, so an active
 *       source is announced again before the far switches age it out;</li>
 *   <li>the destination is looked up: a learned port gets the packet (dropped when it is the
 *       ingress port), anything else is flooded with the switch's flood group (all mapped ports
 *       but the ingress one). Multicast sources are never learned, so multicast is flooded.</li>
 * </ol>
 * A flow learned by a packet is there from the next packet on (Open vSwitch adds learned flows
 * after the translation), but one bridge's NORMAL looks up the destination after learning the
 * source: a frame sent to its own unicast source address is dropped there even when that source
 * is new or has just moved. No flow compares two fields, so {@link Layout#NORMAL_SELF_TABLE}
 * compares them a nibble at a time (reg1 counts the equal leading nibbles; 12 means equal), and
 * such a frame is dropped.
 *
 * <p>The tables exist while a rule or group outputs to NORMAL ({@link Owner#NORMAL}, see
 * {@code PlanService}), once for all of them. Learned entries name virtual ports, not physical
 * ones, so a remap keeps them right; a port that is no longer mapped matches no output entry and
 * its MACs are flooded, as a bridge flushes a deleted port's MACs. Learned entries have a sealed
 * cookie, so reconciliation never sees them. Pure.
 */
final class NormalPipeline {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    /** Open vSwitch's default mac-aging-time. */
    static final int MAC_AGING_S = 300;
    /** How long a switch waits before it announces an active source again. */
    static final int NOTICE_INTERVAL_S = 60;
    /** The cookie of learned entries: sealed, so that switch dumps leave them out; no entry of a plan has it. */
    static final long LEARNED_COOKIE = PhysicalPlan.SEALED_COOKIE_TAG | 0xffffffffffffL;
    private static final int LEARNED_PRIORITY = 1;
    private static final int CODE_BITS = 20;
    private static final int NIBBLES = 12;
    /** Open vSwitch's reserved destinations, as (address, mask) pairs. */
    private static final List<String[]> RESERVED = List.of(
            new String[] {"01:80:c2:00:00:00", "ff:ff:ff:ff:ff:f0"},
            new String[] {"00:e0:2b:00:00:00", "ff:ff:ff:ff:ff:ff"},
            new String[] {"00:e0:2b:00:00:04", "ff:ff:ff:ff:ff:ff"},
            new String[] {"00:e0:2b:00:00:06", "ff:ff:ff:ff:ff:ff"},
            new String[] {"01:00:0c:00:00:00", "ff:ff:ff:ff:ff:ff"},
            new String[] {"01:00:0c:cc:cc:cc", "ff:ff:ff:ff:ff:ff"},
            new String[] {"01:00:0c:cc:cc:cd", "ff:ff:ff:ff:ff:ff"},
            new String[] {"01:00:0c:cd:cd:cd", "ff:ff:ff:ff:ff:ff"},
            new String[] {"01:00:0c:cc:cc:c0", "ff:ff:ff:ff:ff:f8"});

    /** An output to NORMAL: the NORMAL group of the switch where the packet entered. */
    static final Action GROUP = new Action.Group(OFGroup.of((int) Layout.NORMAL_GROUP));

    private NormalPipeline() {
    }

    /**
     * NORMAL's tables and groups on every switch with virtual ports, and the notice entries of
     * every switch with a link, under {@code ports}: the translation of {@link Owner#NORMAL}.
     */
    static Translation of(Topology topology, PortMap ports, TagSpace tags, Predicate<PhysicalPort> live)
            throws TranslationConflictException {
        TagRoutes routes = new TagRoutes(topology, ports, tags, live);
        List<PhysicalRule> flows = new ArrayList<>(notices(topology));
        List<PhysicalGroup> groups = new ArrayList<>();
        for (String s : Translator.switchesWithPorts(topology, ports)) {
            flows.addAll(tables(s, topology, ports, routes));
            groups.add(new PhysicalGroup(s, Layout.NORMAL_GROUP, OFGroupType.INDIRECT, List.of(
                    Bucket.of(List.of(FlowIdHeaders.resubmit(Layout.NORMAL_TABLE)))), 0));
        }
        Translation collected = routes.with(flows);
        groups.addAll(collected.groups());
        return new Translation(collected.flows(), groups);
    }

    /** Whether {@code t}, a rule's or a group's translation, outputs to NORMAL (so needs NORMAL's tables). */
    static boolean usedBy(Translation t) {
        for (PhysicalRule r : t.flows()) {
            for (Instruction i : r.instructions()) {
                if (Instruction.actionsOf(i).contains(GROUP)) {
                    return true;
                }
            }
        }
        for (PhysicalGroup g : t.groups()) {  // loops, not streams: every translation comes here
            for (Bucket b : g.buckets()) {
                if (b.actions().contains(GROUP)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The code of virtual port {@code v} in NORMAL's registers and notices (20 bits: LOCAL is 0xffffe). */
    static int code(OFPort v) {
        return v.getPortNumber() & ((1 << CODE_BITS) - 1);
    }

    /**
     * NORMAL's entries on {@code switchId}, where packets enter: its tables, using {@code routes}
     * for outputs to ports elsewhere and the flood group.
     */
    private static List<PhysicalRule> tables(String switchId, Topology topology, PortMap ports, TagRoutes routes)
            throws TranslationConflictException {
        List<PhysicalRule> out = new ArrayList<>();
        for (String[] r : RESERVED) {
            out.add(rule(switchId, Layout.NORMAL_TABLE, 20, FlowMatch.of(List.of(OF13.oxms().ethDstMasked(
                    MacAddress.of(r[0]), MacAddress.of(r[1])))), List.of()));
        }
        // A packet-out from the controller (in_port CONTROLLER, or ANY sent as it): one bridge's NORMAL
        // has no ingress port for it, so it learns nothing, drops no reserved destination and floods to
        // every port; it only looks up the destination.
        out.add(rule(switchId, Layout.NORMAL_TABLE, 30, FlowMatch.of(List.of(OF13.oxms().inPort(OFPort.CONTROLLER))),
                List.of(load(OF13.oxms().reg3(U32.ZERO)), load(OF13.oxms().reg4(U32.ZERO)),
                        load(OF13.oxms().reg1(U32.ZERO)), FlowIdHeaders.resubmit(Layout.MAC_TABLE),
                        FlowIdHeaders.resubmit(Layout.NORMAL_OUT_TABLE))));
        List<OFPort> links = topology.linkPorts(switchId);
        for (PortMapping m : ports.mappings()) {
            int c = code(m.virtualPort());
            PhysicalPort in = ports.ingress(m.virtualPort()).orElseThrow();
            if (in.switchId().equals(switchId)) {
                out.add(rule(switchId, Layout.NORMAL_TABLE, 10, FlowMatch.of(List.of(OF13.oxms().inPort(
                        in.port()))), List.of(load(OF13.oxms().reg3(U32.of(c))),
                        load(OF13.oxms().reg2(U32.ZERO)), load(OF13.oxms().reg4(U32.ZERO)),
                        load(OF13.oxms().reg1(U32.ZERO)),
                        FlowIdHeaders.resubmit(Layout.NORMAL_LEARN_TABLE), FlowIdHeaders.resubmit(Layout.MAC_TABLE),
                        FlowIdHeaders.resubmit(Layout.NORMAL_OUT_TABLE))));
                out.add(rule(switchId, Layout.NORMAL_CHECK_TABLE, 10, FlowMatch.of(List.of(
                        OF13.oxms().reg2(U32.of(c)), OF13.oxms().reg3(U32.of(c)))), List.of()));
                out.add(rule(switchId, Layout.NORMAL_OUT_TABLE, 20, FlowMatch.of(List.of(
                        OF13.oxms().reg3(U32.of(c)), OF13.oxms().reg4(U32.of(c)))), List.of()));
            }
            if (m.physical().switchId().equals(switchId)) {
                out.add(rule(switchId, Layout.NORMAL_OUT_TABLE, 10, FlowMatch.of(List.of(OF13.oxms().reg4(U32.of(c)))),
                        List.of(Action.Output.to(m.physical().port()))));
            } else {
                out.add(rule(switchId, Layout.NORMAL_OUT_TABLE, 10, FlowMatch.of(List.of(OF13.oxms().reg4(U32.of(c)))),
                        routes.sendTo(switchId, List.of(m.virtualPort()))));
            }
        }
        out.add(rule(switchId, Layout.NORMAL_OUT_TABLE, 30, FlowMatch.of(List.of(OF13.oxms().reg1(U32.of(NIBBLES)))),
                List.of()));
        out.add(rule(switchId, Layout.NORMAL_OUT_TABLE, 0, FlowMatch.ANY, List.of(routes.floodGroup(switchId))));
        out.addAll(sameAddresses(switchId));
        out.add(rule(switchId, Layout.NORMAL_LEARN_TABLE, 20, FlowMatch.of(List.of(OF13.oxms().ethSrcMasked(
                MacAddress.of("01:00:00:00:00:00"), MacAddress.of("01:00:00:00:00:00")))), List.of()));
        out.add(rule(switchId, Layout.NORMAL_LEARN_TABLE, 10, FlowMatch.ANY, List.of(
                sealed(learnMac(Layout.OXM_REG3)), FlowIdHeaders.resubmit(Layout.NORMAL_SELF_TABLE),
                FlowIdHeaders.resubmit(Layout.NORMAL_SEEN_TABLE),
                FlowIdHeaders.resubmit(Layout.NORMAL_CHECK_TABLE))));
        List<Action> announce = new ArrayList<>(List.of(sealed(learnSeen(Layout.OXM_REG3))));
        if (!links.isEmpty()) {
            List<OFAction> notice = new ArrayList<>(List.of(
                    OF13.actions().pushMpls(EthType.of(Layout.NOTICE_ETHERTYPE)),
                    OF13.actions().buildNiciraMove().setNBits(CODE_BITS).setSrcOfs(0).setDstOfs(0)
                            .setSrc(Layout.OXM_REG3).setDst(Layout.OXM_MPLS_LABEL).build()));
            links.forEach(l -> notice.add(OF13.actions().output(l, 0)));
            // Open vSwitch 3.1 executes a copy of the action set at the end of a clone (see FlowIdHeaders)
            notice.add(FlowIdHeaders.resubmitTo(Layout.CLEAR_TABLE));
            announce.add(sealed(SealedAction.clone(notice)));
        }
        out.add(rule(switchId, Layout.NORMAL_CHECK_TABLE, 0, FlowMatch.ANY, announce));
        return out;
    }

    /**
     * The nibble-by-nibble comparison of the source and destination addresses: at step i (reg1),
     * nibble i from the top equal in both goes on to step i + 1.
     */
    private static List<PhysicalRule> sameAddresses(String switchId) {
        List<PhysicalRule> out = new ArrayList<>(NIBBLES * 16);
        for (int i = 0; i < NIBBLES; i++) {
            int shift = 4 * (NIBBLES - 1 - i);
            MacAddress mask = MacAddress.of(0xfL << shift);
            for (long v = 0; v < 16; v++) {
                MacAddress value = MacAddress.of(v << shift);
                out.add(rule(switchId, Layout.NORMAL_SELF_TABLE, 10, FlowMatch.of(List.of(OF13.oxms().reg1(U32.of(i)),
                        OF13.oxms().ethSrcMasked(value, mask), OF13.oxms().ethDstMasked(value, mask))),
                        List.of(load(OF13.oxms().reg1(U32.of(i + 1))),
                                FlowIdHeaders.resubmit(Layout.NORMAL_SELF_TABLE))));
            }
        }
        return out;
    }

    /**
     * What every switch with PCIe links does with a NORMAL notice arriving on one: learns the MAC
     * and its port from it (both tables), and passes it on over its other links.
     */
    private static List<PhysicalRule> notices(Topology topology) {
        List<PhysicalRule> out = new ArrayList<>();
        topology.switches().forEach(s -> {
            List<OFPort> links = topology.linkPorts(s.id());
            for (OFPort arrival : links) {
                List<Action> actions = new ArrayList<>(List.of(sealed(learnMac(Layout.OXM_MPLS_LABEL)),
                        sealed(learnSeen(Layout.OXM_MPLS_LABEL))));
                links.stream().filter(l -> !l.equals(arrival)).forEach(l -> actions.add(Action.Output.to(l)));
                out.add(new PhysicalRule(s.id(), new RuleKey(Layout.DISPATCH_TABLE, Layout.LABEL_PRIORITY,
                        FlowMatch.of(List.of(OF13.oxms().inPort(arrival),
                                OF13.oxms().ethType(EthType.of(Layout.NOTICE_ETHERTYPE))))),
                        List.of(new Instruction.ApplyActions(actions)), PhysicalRule.Role.NORMAL, 0));
            }
        });
        return out;
    }

    /** Learns "the frame's source is behind the port in {@code port}" into the MAC table. */
    private static SealedAction learnMac(long port) {
        return SealedAction.learn("learn(table=" + Layout.MAC_TABLE + ",hard_timeout=" + MAC_AGING_S
                + ",NXM_OF_VLAN_TCI[0..11],NXM_OF_ETH_DST[]=NXM_OF_ETH_SRC[],load:" + name(port)
                + "->NXM_NX_REG4[0..19])", Layout.MAC_TABLE, LEARNED_PRIORITY, MAC_AGING_S, LEARNED_COOKIE, List.of(
                vlanId(), new SealedAction.LearnSpec(false, Layout.NXM_ETH_SRC, 0, Layout.NXM_ETH_DST, 0, 48),
                new SealedAction.LearnSpec(true, port, 0, Layout.OXM_REG4, 0, CODE_BITS)));
    }

    /** Learns "the frame's source was announced on the port in {@code port}" into the seen table. */
    private static SealedAction learnSeen(long port) {
        return SealedAction.learn("learn(table=" + Layout.NORMAL_SEEN_TABLE + ",hard_timeout=" + NOTICE_INTERVAL_S
                + ",NXM_OF_VLAN_TCI[0..11],NXM_OF_ETH_SRC[],load:" + name(port) + "->NXM_NX_REG2[0..19])",
                Layout.NORMAL_SEEN_TABLE, LEARNED_PRIORITY, NOTICE_INTERVAL_S, LEARNED_COOKIE, List.of(
                vlanId(), new SealedAction.LearnSpec(false, Layout.NXM_ETH_SRC, 0, Layout.NXM_ETH_SRC, 0, 48),
                new SealedAction.LearnSpec(true, port, 0, Layout.OXM_REG2, 0, CODE_BITS)));
    }

    /** The VLAN id, as Open vSwitch's NORMAL keys its MAC table (a priority tag is VLAN 0, as untagged). */
    private static SealedAction.LearnSpec vlanId() {
        return new SealedAction.LearnSpec(false, Layout.NXM_VLAN_TCI, 0, Layout.NXM_VLAN_TCI, 0, 12);
    }

    private static String name(long field) {
        return field == Layout.OXM_REG3 ? "NXM_NX_REG3[0..19]" : "OXM_OF_MPLS_LABEL[]";
    }

    private static Action load(OFOxm<?> value) {
        return new Action.Other(OF13.actions().setField(value));
    }

    private static Action sealed(SealedAction a) {
        return new Action.Other(a);
    }

    private static PhysicalRule rule(String switchId, int table, int priority, FlowMatch match, List<Action> actions) {
        return new PhysicalRule(switchId, new RuleKey(table, priority, match),
                actions.isEmpty() ? List.of() : List.of(new Instruction.ApplyActions(actions)),
                PhysicalRule.Role.NORMAL, 0);
    }
}
