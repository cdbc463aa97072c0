package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U32;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.ForwardingTree;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.plan.PhysicalRule;

/**
 * The entries that carry the packets of every virtual port on another switch to the pipeline home,
 * when the port map has one (see {@link PortMap}), and make the home's pipeline treat them as one
 * bridge treats packets of its own port:
 *
 * <ul>
 *   <li>on the port's switch, its dispatch entry sends its packets to the home with the port's own
 *       flow id, instead of into the pipeline there (switches on the way forward them);</li>
 *   <li>on the home, their arrival takes the flow id off, sets in_port to the port's homed number
 *       and goes to the first virtual table;</li>
 *   <li>on the home, an output to the port of a packet that came from it is dropped, as one bridge
 *       drops an output to the in_port: a guard in the egress table, which every send to the port
 *       passes (sends from the home go port by port, see {@link TagRoutes#sendTo});</li>
 *   <li>on the home, the dispatch table sends a packet with a homed in_port to the first virtual table:
 *       output:TABLE looks it up there again;</li>
 *   <li>on the home, output:IN_PORT resubmits to {@link Layout#IN_PORT_TABLE}, which sends a packet
 *       of a homed port back to its port (past the guard, with {@link Layout#IN_PORT_REGISTER} set
 *       for the send) and does output:IN_PORT for anything else.</li>
 * </ul>
 *
 * <p>Pure apart from reserving tags.
 */
final class HomedPorts {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    /** Egress priority of the guard: above the flow-id header entries of {@link FlowIdHeaders#tables}. */
    private static final int GUARD_PRIORITY = 3;
    /** The OXM header of Open vSwitch's 16-bit in_port (NXM_OF_IN_PORT). */
    private static final long NXM_IN_PORT = 0x00000002L;

    private HomedPorts() {
    }

    /** The entries and groups of the pipeline home of {@code ports}, if it has one. */
    static Translation of(Topology topology, PortMap ports, TagSpace tags, Predicate<PhysicalPort> live)
            throws TranslationConflictException {
        if (ports.pipelineHome().isEmpty()) {
            return Translation.EMPTY;
        }
        String home = ports.pipelineHome().get();
        TagRoutes routes = new TagRoutes(topology, ports, tags, live);
        List<PhysicalRule> flows = new ArrayList<>();
        for (PortMapping m : ports.mappings()) {
            if (!ports.isHomed(m.virtualPort())) {
                continue;
            }
            OFPort homed = ports.ingress(m.virtualPort()).orElseThrow().port();
            List<Action> back = routes.sendTo(home, List.of(m.virtualPort()));
            int tag = tags.reserve(List.of(m.virtualPort())).orElseThrow();
            carry(topology, m.physical(), home, tag, homed, flows);
            // output:TABLE goes back to the dispatch table with the in_port it has (no packet arrives with it)
            flows.add(rule(home, Layout.DISPATCH_TABLE, Layout.PIPELINE_PRIORITY, FlowMatch.of(List.of(
                    OF13.oxms().inPort(homed))), List.of(new Instruction.GotoTable(Layout.physicalTable(0))), 0));
            flows.add(rule(home, Layout.EGRESS_TABLE, GUARD_PRIORITY, FlowMatch.of(List.of(OF13.oxms().inPort(homed),
                    OF13.oxms().reg6(U32.of(tag)), OF13.oxms().reg0(U32.ZERO))), List.of(), tag));
            List<Action> toPort = new ArrayList<>();
            toPort.add(setInPortFlag(1));
            toPort.addAll(back);
            toPort.add(setInPortFlag(0));
            flows.add(rule(home, Layout.IN_PORT_TABLE, 1, FlowMatch.of(List.of(OF13.oxms().inPort(homed))),
                    List.of(new Instruction.ApplyActions(toPort)), tag));
        }
        flows.add(rule(home, Layout.IN_PORT_TABLE, 0, FlowMatch.ANY, List.of(new Instruction.ApplyActions(
                List.of(Action.Output.to(OFPort.IN_PORT)))), 0));
        return routes.with(flows);
    }

    /** What {@code output:IN_PORT} becomes on the pipeline home: a resubmit to {@link Layout#IN_PORT_TABLE}. */
    static Action inPortOnHome() {
        return FlowIdHeaders.resubmit(Layout.IN_PORT_TABLE);
    }

    /**
     * Adds the entries that carry packets of {@code port} to {@code home} with flow id {@code tag}:
     * the port's dispatch entry, forwarding on the switches on the way, and the arrival on the home.
     * The frames travel encapsulated: a pushed label would have to be popped before the pipeline, and
     * Open vSwitch recirculates after a pop, which ofproto/trace does not follow (the verifier could not
     * check the homed pipeline); a decapsulated frame is looked up again from the dispatch table, which it does.
     */
    private static void carry(Topology topology, PhysicalPort port, String home, int tag, OFPort homed,
                              List<PhysicalRule> out) {
        ForwardingTree tree = topology.tree(port.switchId(), List.of(home));
        OFPort first = tree.node(port.switchId()).copies().get(0);
        out.add(rule(port.switchId(), Layout.DISPATCH_TABLE, Layout.PIPELINE_PRIORITY, FlowMatch.of(List.of(
                OF13.oxms().inPort(port.port()))), List.of(new Instruction.ApplyActions(
                FlowIdHeaders.encapsulated(tag, first))), tag));
        for (Map.Entry<String, ForwardingTree.Node> e : tree.nodes().entrySet()) {
            String at = e.getKey();
            if (at.equals(port.switchId())) {
                continue;
            }
            FlowMatch arrived = FlowIdHeaders.decapsulated(e.getValue().arrival().orElseThrow(), tag);
            if (at.equals(home)) {
                // the label is in the tunnel id since the decapsulation: a tenant rule may match it
                List<Action> actions = new ArrayList<>(List.of(
                        new Action.Other(OF13.actions().setField(OF13.oxms().tunnelId(U64.ZERO)))));
                actions.addAll(setInPort(homed));
                out.add(rule(at, Layout.DISPATCH_TABLE, Layout.DECAPPED_PRIORITY, arrived, List.of(
                        new Instruction.ApplyActions(actions), new Instruction.GotoTable(Layout.physicalTable(0))),
                        tag));
            } else {
                out.add(rule(at, Layout.DISPATCH_TABLE, Layout.DECAPPED_PRIORITY, arrived, List.of(
                        new Instruction.ApplyActions(FlowIdHeaders.encapsulated(tag, e.getValue().copies().get(0)))),
                        tag));
            }
        }
    }

    /**
     * The actions that set in_port to {@code port}: Open vSwitch refuses a set_field of OXM_OF_IN_PORT
     * (BAD_SET_ARGUMENT) but takes a move into NXM_OF_IN_PORT, so the number goes through the link
     * register (free until a send sets it), which is cleared after.
     */
    private static List<Action> setInPort(OFPort port) {
        return List.of(new Action.Other(OF13.actions().setField(OF13.oxms().reg5(U32.of(port.getPortNumber())))),
                new Action.Other(OF13.actions().buildNiciraMove().setNBits(16).setSrcOfs(0).setDstOfs(0)
                        .setSrc(Layout.OXM_REG5).setDst(NXM_IN_PORT).build()),
                new Action.Other(OF13.actions().setField(OF13.oxms().reg5(U32.ZERO))));
    }

    private static Action setInPortFlag(int value) {
        return new Action.Other(OF13.actions().setField(OF13.oxms().reg0(U32.of(value))));
    }

    private static PhysicalRule rule(String switchId, int table, int priority, FlowMatch match,
                                     List<Instruction> instructions, int tag) {
        return new PhysicalRule(switchId, new RuleKey(table, priority, match), instructions,
                tag != 0 ? PhysicalRule.Role.DELIVERY : PhysicalRule.Role.INFRASTRUCTURE, tag);
    }
}
