package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.plan.PhysicalRule;

/**
 * OneSwitch's own entries in every switch's dispatch table (see {@link Layout}): one entry per
 * virtual port of the switch that sends its packets into the virtual pipeline, the drain markers
 * (a marker for switch D arriving on a link is sent to the controller, OneSwitch, on D and
 * forwarded toward D elsewhere, so that a marker sent after a change proves every packet sent
 * before it over the same links has arrived), and a drop for everything else: link arrivals whose
 * tag is unknown and packets from physical ports that are not virtual ports (an NF's port before
 * the agent maps it, the old port after a remap), which must not enter the virtual switch; and
 * the tables that put flow ids on and take them off ({@link FlowIdHeaders}). The dispatch entries
 * of ports carried to a pipeline home are {@link HomedPorts}'. Pure.
 */
public final class Infrastructure {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);

    private Infrastructure() {
    }

    /** The dispatch entries of every switch of {@code topology} under the port map {@code ports}. */
    public static Translation of(Topology topology, PortMap ports) {
        if (topology.switches().size() > Layout.MAX_SWITCHES) {
            throw new IllegalArgumentException("at most " + Layout.MAX_SWITCHES + " switches are supported");
        }
        List<PhysicalRule> out = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            out.add(rule(s.id(), Layout.DROP_PRIORITY, FlowMatch.ANY, List.of()));
            for (PortMapping m : ports.mappings()) {
                if (m.physical().switchId().equals(s.id()) && !ports.isHomed(m.virtualPort())) {
                    out.add(rule(s.id(), Layout.PIPELINE_PRIORITY, FlowMatch.of(List.of(OF13.oxms()
                            .inPort(m.physical().port()))), List.of(new Instruction.GotoTable(Layout.physicalTable(0)))));
                }
            }
            for (OFPort link : topology.linkPorts(s.id())) {
                for (SwitchSpec d : topology.switches()) {
                    markerRule(topology, s.id(), link, d.id()).ifPresent(out::add);
                }
            }
            out.addAll(FlowIdHeaders.tables(s.id(), topology.linkPorts(s.id())));
        }
        return new Translation(out, List.of());
    }

    /** The marker tag of switch {@code switchId}. */
    public static int markerOf(Topology topology, String switchId) {
        return Layout.MARKER_BASE + topology.switches().indexOf(topology.byId(switchId).orElseThrow());
    }

    /**
     * The actions that send a drain marker from {@code from} toward {@code to} (a packet-out with
     * them leaves over the PCIe link on the way, tagged with {@code to}'s marker).
     */
    public static List<Action> markerActions(Topology topology, String from, String to) {
        OFPort link = topology.tree(from, List.of(to)).node(from).copies().get(0);
        return List.of(TagRoutes.pushTag(), TagRoutes.setTag(markerOf(topology, to)), Action.Output.to(link));
    }

    /** The switch whose marker tag is {@code vid}, if any. */
    public static Optional<String> switchOfMarker(Topology topology, int vid) {
        int i = vid - Layout.MARKER_BASE;
        return i >= 0 && i < topology.switches().size() ? Optional.of(topology.switches().get(i).id())
                : Optional.empty();
    }

    private static Optional<PhysicalRule> markerRule(Topology topology, String at, OFPort link, String dest) {
        List<Action> actions;
        if (dest.equals(at)) {
            actions = List.of(new Action.Output(OFPort.CONTROLLER, 0xffff));
        } else {
            OFPort next = topology.tree(at, List.of(dest)).node(at).copies().get(0);
            if (next.equals(link)) {
                return Optional.empty();
            }
            actions = List.of(Action.Output.to(next));
        }
        return Optional.of(rule(at, Layout.TAG_PRIORITY, TagRoutes.tagged(link, markerOf(topology, dest)),
                List.of(new Instruction.ApplyActions(actions))));
    }

    private static PhysicalRule rule(String switchId, int priority, FlowMatch match, List<Instruction> instructions) {
        return new PhysicalRule(switchId, new RuleKey(Layout.DISPATCH_TABLE, priority, match), instructions,
                PhysicalRule.Role.INFRASTRUCTURE, 0);
    }
}
