package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFBadActionCode;
import org.projectfloodlight.openflow.protocol.OFBadInstructionCode;
import org.projectfloodlight.openflow.protocol.OFBadMatchCode;
import org.projectfloodlight.openflow.protocol.match.MatchFields;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.BadInstructionException;
import org.uno.oneswitch.error.BadMatchException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.ForwardingTree;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualRule;

/**
 * Port-map based translation of one virtual rule into physical rules (UNO paper §3.3.1, steps 1-4).
 *
 * <ol>
 *   <li>No ingress and no egress port: the rule goes to every switch as it is.</li>
 *   <li>Ingress port only (all outputs local): the rule goes to the ingress switch.</li>
 *   <li>Ingress and egress ports on other switches: the ingress switch first copies the unchanged
 *       packet onto the link(s) toward the egress switches, then applies the rule's actions to its
 *       own ports; every switch on the way has a table-0 rule on its link port that copies further
 *       and, on egress switches, applies the rule's actions to its own ports. Header rewrites thus
 *       happen once per egress port, on the switch that owns the port.</li>
 *   <li>No ingress but egress ports (or FLOOD/ALL/IN_PORT): the rule is expanded over every mapped
 *       virtual port as ingress and each copy translated as in 3.</li>
 * </ol>
 *
 * <p>The result of one rule is not yet checked against the others: {@link PhysicalPlan} does that.
 * Pure: depends only on the rule, the port map and the topology.
 */
public final class Translator {
    /** Fields a packet loses when it crosses a link: the far switch cannot match them. */
    static final Set<MatchFields> PIPELINE_FIELDS = EnumSet.of(MatchFields.IN_PORT, MatchFields.IN_PHY_PORT,
            MatchFields.METADATA);

    private final Topology topology;

    public Translator(Topology topology) {
        this.topology = topology;
    }

    /**
     * The physical rules {@code rule} needs under {@code ports}; empty when its ingress port is not
     * mapped. Throws when the rule uses something this translation does not support.
     */
    public List<PhysicalRule> translate(VirtualRule rule, PortMap ports) throws OpenFlowException {
        checkSupported(rule);
        Optional<OFPort> in = rule.match().inPort();
        if (in.isPresent()) {
            Optional<PhysicalPort> p = ports.physical(in.get());
            return p.isEmpty() ? List.of() : fromIngress(rule, in.get(), p.get(), ports);
        }
        if (!dependsOnIngress(rule, ports)) {
            return everywhere(rule, ports);
        }
        List<PhysicalRule> out = new ArrayList<>();
        for (PortMapping m : ports.mappings()) {
            out.addAll(fromIngress(rule, m.virtualPort(), m.physical(), ports));
        }
        return out;
    }

    /** Step 1: the rule on every switch, each switch being the ingress for its own ports. */
    private List<PhysicalRule> everywhere(VirtualRule rule, PortMap ports) {
        List<PhysicalRule> out = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            List<Instruction> ins = localizeInstructions(rule.instructions(), s.id(), null, s.id(), ports);
            out.add(new PhysicalRule(s.id(), rule.key(), ins, PhysicalRule.Role.COUNTING,
                    Origin.anyPort(rule.table())));
        }
        return out;
    }

    /** Steps 2 and 3 for one ingress port. */
    private List<PhysicalRule> fromIngress(VirtualRule rule, OFPort ingress, PhysicalPort at, PortMap ports)
            throws TranslationConflictException {
        String si = at.switchId();
        List<Action> apply = applyActions(rule);
        Map<String, List<Action>> local = new LinkedHashMap<>();
        List<String> egress = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            List<Action> actions = ActionLocalizer.localize(apply, s.id(), ingress, si, ports);
            local.put(s.id(), actions);
            if (!s.id().equals(si) && ActionLocalizer.hasOutput(actions)) {
                egress.add(s.id());
            }
            checkWriteActionsLocal(rule, s.id(), ingress, si, ports);
        }
        RuleKey ingressKey = new RuleKey(rule.table(), rule.priority(), rule.match().withInPort(at.port()));
        List<Instruction> ingressInstructions = localizeInstructions(rule.instructions(), si, ingress, si, ports);
        if (egress.isEmpty()) {
            return List.of(new PhysicalRule(si, ingressKey, ingressInstructions, PhysicalRule.Role.COUNTING,
                    Origin.LOCAL));
        }
        ForwardingTree tree = topology.tree(si, egress);
        List<PhysicalRule> out = new ArrayList<>();
        List<Action> ingressApply = new ArrayList<>(copies(tree.node(si)));
        ingressApply.addAll(local.get(si));
        if (endsThePipeline(rule)) {
            ingressApply = ActionLocalizer.trimAfterLastOutput(ingressApply);
        }
        out.add(new PhysicalRule(si, ingressKey, replaceApply(ingressInstructions, ingressApply),
                PhysicalRule.Role.COUNTING, Origin.LOCAL));
        FlowMatch headers = rule.match().without(PIPELINE_FIELDS);
        Origin origin = Origin.link(ingress, rule.table(), rule.match().only(PIPELINE_FIELDS).without(
                EnumSet.of(MatchFields.IN_PORT)));
        for (Map.Entry<String, ForwardingTree.Node> e : tree.nodes().entrySet()) {
            if (e.getKey().equals(si)) {
                continue;
            }
            ForwardingTree.Node node = e.getValue();
            List<Action> actions = new ArrayList<>(copies(node));
            if (egress.contains(e.getKey())) {
                actions.addAll(local.get(e.getKey()));
            }
            RuleKey key = new RuleKey(0, rule.priority(), headers.withInPort(node.arrival().orElseThrow()));
            out.add(new PhysicalRule(e.getKey(), key,
                    List.of(new Instruction.ApplyActions(ActionLocalizer.trimAfterLastOutput(actions))),
                    PhysicalRule.Role.FORWARDING, origin));
        }
        return out;
    }

    /**
     * True when nothing runs after the rule's apply-actions: table 0 (no action set from earlier
     * tables), no write_actions, no goto_table. Header rewrites after the last output are then no-ops.
     */
    private static boolean endsThePipeline(VirtualRule rule) {
        return rule.table() == 0 && rule.instructions().stream().noneMatch(
                i -> i instanceof Instruction.GotoTable || i instanceof Instruction.WriteActions);
    }

    private static List<Action> copies(ForwardingTree.Node node) {
        return node.copies().stream().<Action>map(Action.Output::to).toList();
    }

    /** True when what the rule does depends on where the packet entered (step 4 applies). */
    private static boolean dependsOnIngress(VirtualRule rule, PortMap ports) {
        for (Instruction ins : rule.instructions()) {
            for (Action a : actionsOf(ins)) {
                if (a instanceof Action.Output o && (o.port().equals(OFPort.FLOOD) || o.port().equals(OFPort.ALL)
                        || o.port().equals(OFPort.IN_PORT) || ports.get(o.port()).isPresent())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** An action set can only output on the switch where the pipeline runs: the ingress switch. */
    private static void checkWriteActionsLocal(VirtualRule rule, String switchId, OFPort ingress, String si,
                                               PortMap ports) throws TranslationConflictException {
        if (switchId.equals(si)) {
            return;
        }
        for (Instruction ins : rule.instructions()) {
            if (ins instanceof Instruction.WriteActions w
                    && ActionLocalizer.hasOutput(ActionLocalizer.localize(w.actions(), switchId, ingress, si, ports))) {
                throw new TranslationConflictException("write_actions with an output to a port on another "
                        + "physical switch than the ingress port cannot be translated yet: " + rule);
            }
        }
    }

    private static List<Instruction> localizeInstructions(List<Instruction> instructions, String switchId,
                                                          OFPort ingress, String si, PortMap ports) {
        List<Instruction> out = new ArrayList<>(instructions.size());
        for (Instruction ins : instructions) {
            if (ins instanceof Instruction.ApplyActions a) {
                out.add(new Instruction.ApplyActions(ActionLocalizer.localize(a.actions(), switchId, ingress, si, ports)));
            } else if (ins instanceof Instruction.WriteActions w) {
                out.add(new Instruction.WriteActions(ActionLocalizer.localize(w.actions(), switchId, ingress, si, ports)));
            } else {
                out.add(ins);
            }
        }
        return out;
    }

    private static List<Instruction> replaceApply(List<Instruction> instructions, List<Action> apply) {
        List<Instruction> out = new ArrayList<>(instructions.size());
        for (Instruction ins : instructions) {
            out.add(ins instanceof Instruction.ApplyActions ? new Instruction.ApplyActions(apply) : ins);
        }
        return out;
    }

    private static List<Action> applyActions(VirtualRule rule) {
        for (Instruction ins : rule.instructions()) {
            if (ins instanceof Instruction.ApplyActions a) {
                return a.actions();
            }
        }
        return List.of();
    }

    private static List<Action> actionsOf(Instruction ins) {
        if (ins instanceof Instruction.ApplyActions a) {
            return a.actions();
        }
        return ins instanceof Instruction.WriteActions w ? w.actions() : List.of();
    }

    /** Refuses what the translation cannot express yet, with the OpenFlow error for it. */
    static void checkSupported(VirtualRule rule) throws OpenFlowException {
        Optional<OFPort> in = rule.match().inPort();
        if (in.isPresent() && !isDataPort(in.get())) {
            throw new BadMatchException(OFBadMatchCode.BAD_VALUE, "in_port " + in.get() + " is not a port of this switch");
        }
        if (rule.match().has(MatchFields.IN_PHY_PORT)) {
            throw new BadMatchException(OFBadMatchCode.BAD_FIELD, "in_phy_port is not supported");
        }
        for (Instruction ins : rule.instructions()) {
            if (ins instanceof Instruction.Meter) {
                throw new BadInstructionException(OFBadInstructionCode.UNSUP_INST, "meters are not supported");
            }
            checkActions(actionsOf(ins), false);
        }
    }

    /** Refuses groups and outputs to reserved ports a virtual switch cannot honour. */
    static void checkActions(List<Action> actions, boolean packetOut) throws BadActionException {
        for (Action a : actions) {
            if (a instanceof Action.Group g) {
                throw new BadActionException(OFBadActionCode.BAD_OUT_GROUP, "group " + g.group() + " does not exist");
            }
            if (a instanceof Action.Output o && !isDataPort(o.port()) && !o.port().equals(OFPort.FLOOD)
                    && !o.port().equals(OFPort.ALL) && !o.port().equals(OFPort.IN_PORT)
                    && !o.port().equals(OFPort.CONTROLLER) && !(packetOut && o.port().equals(OFPort.TABLE))) {
                throw new BadActionException(OFBadActionCode.BAD_OUT_PORT, "output to " + o.port()
                        + " is not supported by the virtual switch");
            }
        }
    }

    /** A port number that can be a virtual port (1..OFPP_MAX-1). */
    static boolean isDataPort(OFPort port) {
        int n = port.getPortNumber();
        return n != 0 && Integer.compareUnsigned(n, OFPort.MAX.getPortNumber()) < 0;
    }
}
