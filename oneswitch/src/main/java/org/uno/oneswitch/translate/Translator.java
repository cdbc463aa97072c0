package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalRule;

/**
 * Translates virtual rules and groups into physical entries (UNO paper §3.3.1, with flow-id tags).
 *
 * <p>A packet is processed by the whole virtual pipeline on the switch where it enters, so every
 * match field, the pipeline metadata, the action set and header rewrites behave exactly as on one
 * switch, and each rewrite happens once. A rule with an ingress port goes to that port's switch;
 * a rule without one (including wildcard ingress, Table 1's step 4) goes to every switch that has
 * virtual ports, since packets may enter at any of them. An output to a port on another switch
 * sends the packet with the flow id of its port set (an MPLS label after any tenant tag, or an
 * 802.1ad tag: {@link FlowIdHeaders}) over the PCIe link; the far switch's dispatch table matches
 * the flow id, takes it off and outputs (the
 * multi-ingress and multi-egress cases of Table 1 need nothing more: the tag says where the packet
 * goes, and rewrites were done before it was sent). Pure apart from reserving tags (and reading the
 * liveness of ports a fast-failover bucket watches on another switch).
 */
public final class Translator {
    private final Topology topology;
    private final Predicate<PhysicalPort> live;

    /**
     * A translator for {@code topology}; {@code live} tells whether a physical port is live (a
     * fast-failover bucket on another switch watching it follows it).
     */
    public Translator(Topology topology, Predicate<PhysicalPort> live) {
        this.topology = topology;
        this.live = live;
    }

    /**
     * The physical entries {@code rule} needs under {@code ports}: nothing when its ingress port
     * is not mapped. The rule has passed {@link RuleValidator#rule}.
     */
    public Translation translate(VirtualRule rule, PortMap ports, TagSpace tags) throws OpenFlowException {
        TagRoutes routes = new TagRoutes(topology, ports, tags, live);
        List<PhysicalRule> instances = new ArrayList<>();
        Optional<OFPort> in = rule.match().inPort();
        if (in.isPresent()) {
            Optional<PhysicalPort> p = ports.ingress(in.get());
            if (p.isEmpty()) {
                return Translation.EMPTY;
            }
            instances(rule, p.get().switchId(), rule.match().withInPort(p.get().port()), ports, routes, instances);
        } else {
            for (String s : switchesWithPorts(topology, ports)) {
                instances(rule, s, rule.match(), ports, routes, instances);
            }
        }
        return routes.with(instances);
    }

    /**
     * OneSwitch's own entries under {@code ports} (see {@link Infrastructure}), with those of its
     * pipeline home if it has one ({@link HomedPorts}).
     */
    public Translation infrastructure(PortMap ports, TagSpace tags) throws TranslationConflictException {
        Translation own = Infrastructure.of(topology, ports);
        if (ports.pipelineHome().isEmpty()) {
            return own;
        }
        Translation homed = HomedPorts.of(topology, ports, tags, live);
        List<PhysicalRule> flows = new ArrayList<>(own.flows());
        flows.addAll(homed.flows());
        return new Translation(flows, homed.groups());
    }

    /** The physical groups {@code group} needs: its buckets localised on every switch with virtual ports. */
    public Translation translate(VirtualGroup group, PortMap ports, TagSpace tags) throws TranslationConflictException {
        TagRoutes routes = new TagRoutes(topology, ports, tags, live);
        List<PhysicalGroup> out = new ArrayList<>();
        for (String s : switchesWithPorts(topology, ports)) {
            Localizer l = new Localizer(s, ports, routes, null);
            List<Bucket> buckets = new ArrayList<>(group.buckets().size());
            for (Bucket b : group.buckets()) {
                buckets.add(l.bucket(b));
            }
            out.add(new PhysicalGroup(s, group.id(), group.type(), buckets, 0));
        }
        return routes.withGroups(out);
    }

    /** Adds {@code rule}'s counting entries on {@code switchId} to {@code out}: two when {@link ActionSetFlag} splits it. */
    private static void instances(VirtualRule rule, String switchId, FlowMatch match, PortMap ports, TagRoutes routes,
                                  List<PhysicalRule> out) throws TranslationConflictException {
        Localizer l = new Localizer(switchId, ports, routes, rule.match().inPort().orElse(null));
        List<Instruction> ins = l.instructions(rule.instructions());
        OFOxm<?> flag = ActionSetFlag.setBy(rule);
        if (flag != null) {
            ins = ActionSetFlag.setting(ins, flag);
        }
        if (!ActionSetFlag.splits(rule)) {
            out.add(counting(rule, switchId, match, ins));
            return;
        }
        out.add(counting(rule, switchId, match.with(ActionSetFlag.NO_GROUP), ins));
        out.add(counting(rule, switchId, match.with(ActionSetFlag.HOLDS_GROUP),
                l.instructions(ActionSetFlag.withoutSetOutputs(rule.instructions()))));
    }

    private static PhysicalRule counting(VirtualRule rule, String switchId, FlowMatch match, List<Instruction> ins) {
        RuleKey key = new RuleKey(Layout.physicalTable(rule.table()), rule.priority(), match);
        return new PhysicalRule(switchId, key, ins, PhysicalRule.Role.COUNTING, 0);
    }

    /**
     * NORMAL's tables and groups under {@code ports} (see {@link NormalPipeline}): the translation of
     * {@link Owner#NORMAL} while a rule or group outputs to NORMAL.
     */
    public Translation normal(PortMap ports, TagSpace tags) throws TranslationConflictException {
        return NormalPipeline.of(topology, ports, tags, live);
    }

    /** How long NORMAL keeps a learned address after its last packet (Open vSwitch's default mac-aging-time). */
    public static int normalMacAgingSeconds() {
        return NormalPipeline.MAC_AGING_S;
    }

    /** Whether a rule's or group's translation outputs to NORMAL. */
    public static boolean outputsToNormal(Translation t) {
        return NormalPipeline.usedBy(t);
    }

    /** The switches where packets enter the virtual pipeline, in topology order (see {@link PortDependencies}). */
    static Set<String> switchesWithPorts(Topology topology, PortMap ports) {
        Set<String> present = PortDependencies.switchesWithPorts(ports);
        Set<String> out = new LinkedHashSet<>();
        topology.switches().forEach(s -> {
            if (present.contains(s.id())) {
                out.add(s.id());
            }
        });
        return out;
    }
}
