package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;

/**
 * Rewrites a virtual action list into the part one physical switch executes: outputs to virtual
 * ports become outputs to that switch's physical ports (outputs to other switches' ports are left
 * out), FLOOD and ALL become explicit outputs, and the reserved ports that belong to where the
 * packet entered (IN_PORT, CONTROLLER, TABLE) stay only on the ingress switch. Other actions are
 * kept in place. Pure.
 */
final class ActionLocalizer {
    private ActionLocalizer() {
    }

    /**
     * The actions {@code switchId} executes for a packet that entered the virtual switch at
     * {@code ingress} (null when it came from the controller) on switch {@code ingressSwitch}.
     */
    static List<Action> localize(List<Action> actions, String switchId, OFPort ingress, String ingressSwitch,
                                 PortMap ports) {
        boolean atIngress = switchId.equals(ingressSwitch);
        List<Action> out = new ArrayList<>(actions.size());
        for (Action a : actions) {
            if (!(a instanceof Action.Output o)) {
                out.add(a);
            } else if (isIngressReserved(o.port())) {
                if (atIngress) {
                    out.add(o);
                }
            } else if (o.port().equals(OFPort.FLOOD) || o.port().equals(OFPort.ALL)) {
                for (PortMapping m : ports.mappings()) {
                    if (m.physical().switchId().equals(switchId) && !m.virtualPort().equals(ingress)) {
                        out.add(Action.Output.to(m.physical().port()));
                    }
                }
            } else if (!o.port().equals(ingress)) {
                Optional<PortMapping> m = ports.get(o.port());
                if (m.isPresent() && m.get().physical().switchId().equals(switchId)) {
                    out.add(new Action.Output(m.get().physical().port(), o.maxLen()));
                }
            }
        }
        return out;
    }

    /** True when the list holds an output (after localisation: a packet leaves here). */
    static boolean hasOutput(List<Action> actions) {
        return actions.stream().anyMatch(a -> a instanceof Action.Output);
    }

    /** The list without the actions after its last output (they cannot change anything). */
    static List<Action> trimAfterLastOutput(List<Action> actions) {
        int last = -1;
        for (int i = 0; i < actions.size(); i++) {
            if (actions.get(i) instanceof Action.Output) {
                last = i;
            }
        }
        return actions.subList(0, last + 1);
    }

    /** Reserved ports that only make sense where the packet entered. */
    static boolean isIngressReserved(OFPort port) {
        return port.equals(OFPort.IN_PORT) || port.equals(OFPort.CONTROLLER) || port.equals(OFPort.TABLE);
    }
}
