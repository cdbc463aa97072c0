package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeSet;
import java.util.function.Predicate;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.OFVlanVidMatch;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.ForwardingTree;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PhysicalRule;

/**
 * Collects, while one virtual rule or group is translated, the groups its action sets output
 * through (port groups, the flood group) and the entries that carry its packets to virtual ports
 * on other switches: on the sending switch a tag group that sends the packet with the flow id of
 * the port set over the PCIe link(s) toward them ({@link FlowIdHeaders}); on every switch on the
 * way a delivery entry per flow-id header (a pushed label, an encapsulated frame) in the dispatch
 * table that matches the link port and the flow id, forwards the packet on toward farther switches,
 * takes the header off and outputs to its own ports of the set.
 *
 * <p>The entries depend only on (switch, arrival link, port set), the port map and, for a
 * fast-failover bucket watching a port elsewhere, that port's liveness, so the same entries needed
 * by several rules are identical and shared in the plan. Pure apart from reserving tags in the
 * {@link TagSpace}.
 */
final class TagRoutes {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    private static final Action PUSH_TAG = new Action.Other(OF13.actions().pushVlan(EthType.of(Layout.TAG_TPID)));

    private final Topology topology;
    private final PortMap ports;
    private final TagSpace tags;
    private final Predicate<PhysicalPort> live;
    private final Map<PhysicalKey, PhysicalRule> deliveries = new LinkedHashMap<>();
    private final Map<PhysicalGroup.GroupKey, PhysicalGroup> groups = new LinkedHashMap<>();

    TagRoutes(Topology topology, PortMap ports, TagSpace tags, Predicate<PhysicalPort> live) {
        this.topology = topology;
        this.ports = ports;
        this.tags = tags;
        this.live = live;
    }

    /**
     * The actions that send the packet from {@code sender} to the virtual ports {@code remote}
     * (all mapped to other switches): the tag group of their tag, or when the set gets no tag (see
     * {@link TagSpace#reserve}) or {@code sender} is the pipeline home the tag group of each port in
     * turn. One port's set is one action.
     */
    List<Action> sendTo(String sender, Collection<OFPort> remote) throws TranslationConflictException {
        // from the pipeline home each homed port is sent to alone, past its guard (see HomedPorts)
        OptionalInt tag = remote.size() > 1 && ports.pipelineHome().filter(sender::equals).isPresent()
                ? OptionalInt.empty() : tags.reserve(remote);
        if (tag.isPresent()) {
            return List.of(tagGroup(sender, tag.getAsInt(), remote));
        }
        List<Action> out = new ArrayList<>(remote.size());
        for (OFPort p : remote) {
            out.add(tagGroup(sender, tags.reserve(List.of(p)).orElseThrow(), List.of(p)));
        }
        return out;
    }

    private Action tagGroup(String sender, int tag, Collection<OFPort> remote) {
        long groupId = Layout.TAG_GROUP_BASE + tag;
        if (!groups.containsKey(new PhysicalGroup.GroupKey(sender, groupId))) {
            build(sender, tag, remote);
        }
        return new Action.Group(OFGroup.of((int) groupId));
    }

    /**
     * The action that does {@code output} (to a physical port, IN_PORT or CONTROLLER) on
     * {@code switchId} through its port group (an indirect group with that one output).
     */
    Action portGroup(String switchId, Action.Output output) {
        long id = Layout.portGroup(output);
        Action out = output.port().equals(OFPort.CONTROLLER) ? output
                : output.port().equals(OFPort.IN_PORT) && isHome(switchId) ? HomedPorts.inPortOnHome()
                : Action.Output.to(output.port());
        PhysicalGroup g = new PhysicalGroup(switchId, id, OFGroupType.INDIRECT, List.of(Bucket.of(List.of(out))), 0);
        groups.putIfAbsent(g.groupKey(), g);
        return new Action.Group(OFGroup.of((int) id));
    }

    /** True when {@code switchId} is the pipeline home of the port map (see {@link HomedPorts}). */
    boolean isHome(String switchId) {
        return ports.pipelineHome().filter(switchId::equals).isPresent();
    }

    /**
     * The action that floods from an action set or a group bucket on {@code switchId}: its flood
     * group, of type ALL, with a bucket per mapped port of the switch (Open vSwitch skips the
     * packet's in_port, as FLOOD and ALL do) and one applying the tag group of every mapped port
     * elsewhere (a packet enters on the switch whose pipeline runs, so none of those is its in_port;
     * on a pipeline home, the guard of a homed port drops its own copy, see {@link HomedPorts}).
     */
    Action floodGroup(String switchId) throws TranslationConflictException {
        List<Bucket> buckets = new ArrayList<>();
        TreeSet<OFPort> remote = new TreeSet<>(Localizer::compare);
        for (PortMapping m : ports.mappings()) {
            if (m.physical().switchId().equals(switchId)) {
                buckets.add(Bucket.of(List.of(Action.Output.to(m.physical().port()))));
            } else {
                remote.add(m.virtualPort());
            }
        }
        if (!remote.isEmpty()) {
            for (Action send : sendTo(switchId, remote)) {
                buckets.add(Bucket.of(List.of(send)));
            }
        }
        PhysicalGroup g = new PhysicalGroup(switchId, Layout.FLOOD_GROUP, OFGroupType.ALL, buckets, 0);
        groups.putIfAbsent(g.groupKey(), g);
        return new Action.Group(OFGroup.of((int) Layout.FLOOD_GROUP));
    }

    /**
     * What a fast-failover bucket on {@code from} watches for port {@code far} on another switch:
     * the PCIe link toward it while {@code far} is live (a dead link makes it dead too), else a
     * port that is never live. {@code far}'s own state is not visible on {@code from}, so the group
     * is translated again when it changes (see {@code PlanService.followLiveness}).
     */
    OFPort watchToward(String from, PhysicalPort far) {
        if (!live.test(far)) {
            return Localizer.UNMAPPED_WATCH;
        }
        return topology.tree(from, List.of(far.switchId())).node(from).copies().get(0);
    }

    /** The collected groups, and {@code flows} followed by the collected deliveries. */
    Translation with(List<PhysicalRule> flows) {
        List<PhysicalRule> all = new ArrayList<>(flows);
        all.addAll(deliveries.values());
        return new Translation(all, new ArrayList<>(groups.values()));
    }

    /** The collected deliveries and tag groups, and {@code localGroups}. */
    Translation withGroups(List<PhysicalGroup> localGroups) {
        List<PhysicalGroup> all = new ArrayList<>(groups.values());
        all.addAll(localGroups);
        return new Translation(new ArrayList<>(deliveries.values()), all);
    }

    private void build(String sender, int tag, Collection<OFPort> remote) {
        TreeSet<String> targets = new TreeSet<>();
        for (OFPort v : remote) {
            targets.add(ports.physical(v).orElseThrow().switchId());
        }
        ForwardingTree tree = topology.tree(sender, targets);
        List<Bucket> buckets = new ArrayList<>();
        for (OFPort link : tree.node(sender).copies()) {
            buckets.add(Bucket.of(FlowIdHeaders.sendActions(tag, link)));
        }
        PhysicalGroup g = new PhysicalGroup(sender, Layout.TAG_GROUP_BASE + tag, OFGroupType.ALL, buckets, tag);
        groups.put(g.groupKey(), g);
        for (Map.Entry<String, ForwardingTree.Node> e : tree.nodes().entrySet()) {
            if (e.getKey().equals(sender)) {
                continue;
            }
            ForwardingTree.Node node = e.getValue();
            OFPort arrival = node.arrival().orElseThrow();
            List<Action> local = localOutputs(e.getKey(), remote);
            List<Action> labelled = new ArrayList<>();
            List<Action> decapsulated = new ArrayList<>();
            for (OFPort link : node.copies()) {
                labelled.add(Action.Output.to(link));
                decapsulated.addAll(FlowIdHeaders.sendActions(tag, link));
            }
            if (!local.isEmpty()) {
                labelled.add(FlowIdHeaders.popLabel());
                labelled.addAll(local);
                decapsulated.addAll(local);
            }
            delivery(e.getKey(), Layout.LABEL_PRIORITY, FlowIdHeaders.labelled(arrival, tag), labelled, tag);
            delivery(e.getKey(), Layout.DECAPPED_PRIORITY, FlowIdHeaders.decapsulated(arrival, tag), decapsulated, tag);
        }
    }

    /**
     * The delivery on {@code switchId} of packets matching {@code match}: a labelled arrival is
     * forwarded unchanged toward farther switches, then popped and output to the switch's ports; a
     * decapsulated one is sent on with its tag again (encapsulated anew), then output.
     */
    private void delivery(String switchId, int priority, FlowMatch match, List<Action> actions, int tag) {
        PhysicalRule d = new PhysicalRule(switchId, new RuleKey(Layout.DISPATCH_TABLE, priority, match),
                List.of(new Instruction.ApplyActions(actions)), PhysicalRule.Role.DELIVERY, tag);
        deliveries.put(d.physicalKey(), d);
    }

    private List<Action> localOutputs(String switchId, Collection<OFPort> remote) {
        TreeSet<Integer> out = new TreeSet<>(Integer::compareUnsigned);
        for (OFPort v : remote) {
            PhysicalPort p = ports.physical(v).orElseThrow();
            if (p.switchId().equals(switchId)) {
                out.add(p.port().getPortNumber());
            }
        }
        return out.stream().<Action>map(n -> Action.Output.to(OFPort.of(n))).toList();
    }

    /**
     * The match of drain markers {@code vid} arriving on link port {@code link}; a decapsulated
     * tenant frame (tunnel id set) with that VLAN id is not one.
     */
    static FlowMatch tagged(OFPort link, int vid) {
        return FlowMatch.of(List.of(OF13.oxms().inPort(link), OF13.oxms().vlanVid(OFVlanVidMatch.ofVlan(vid)),
                OF13.oxms().tunnelId(U64.ZERO)));
    }

    /** The action setting the outer VLAN id to {@code vid}. */
    static Action setTag(int vid) {
        return new Action.Other(OF13.actions().setField(OF13.oxms().vlanVid(OFVlanVidMatch.ofVlan(vid))));
    }

    /** The action pushing an 802.1ad tag. */
    static Action pushTag() {
        return PUSH_TAG;
    }
}
