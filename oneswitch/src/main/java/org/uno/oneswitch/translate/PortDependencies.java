package org.uno.oneswitch.translate;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;

/**
 * Which translations a change of one virtual port's mapping can change (the paper's R_U): those of
 * rules that match it as in_port or output to it (FLOOD and ALL output to every port), and of
 * groups whose buckets output to it or watch it. Every other translation stays the same, unless the
 * set of switches with virtual ports changes (rules without in_port go to each of them) or the
 * pipeline home does. Pure.
 */
public final class PortDependencies {
    private PortDependencies() {
    }

    /** True when {@code rule}'s translation may change when {@code port} moves, appears or goes. */
    public static boolean touches(VirtualRule rule, OFPort port) {
        if (rule.match().inPort().filter(port::equals).isPresent()) {
            return true;
        }
        for (Instruction ins : rule.instructions()) {
            if (outputsTo(Instruction.actionsOf(ins), port)) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code group}'s translation may change when {@code port} moves, appears or goes. */
    public static boolean touches(VirtualGroup group, OFPort port) {
        for (Bucket b : group.buckets()) {
            if (b.watchPort().equals(port) || outputsTo(b.actions(), port)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The switches where packets enter the virtual pipeline under {@code ports}: those with a virtual
     * port, or the pipeline home alone when the map has one.
     */
    public static Set<String> switchesWithPorts(PortMap ports) {
        Set<String> out = new LinkedHashSet<>();
        for (PortMapping m : ports.mappings()) {
            out.add(ports.ingress(m.virtualPort()).orElseThrow().switchId());
        }
        return out;
    }

    private static boolean outputsTo(List<Action> actions, OFPort port) {
        for (Action a : actions) {
            if (a instanceof Action.Output o && (o.port().equals(port) || o.port().equals(OFPort.FLOOD)
                    || o.port().equals(OFPort.ALL))) {
                return true;
            }
        }
        return false;
    }
}
