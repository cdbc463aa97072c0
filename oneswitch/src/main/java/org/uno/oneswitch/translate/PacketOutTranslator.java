package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.projectfloodlight.openflow.protocol.OFBadActionCode;
import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;

/**
 * Translates a virtual PACKET_OUT into one PACKET_OUT per physical switch that has an output port
 * of it: each switch gets its own copy of the packet from OneSwitch, with the actions localised as
 * for flow rules. What must run once for the packet runs on the ingress switch (the switch of its
 * in_port, or the pipeline home for a homed port; the host's for CONTROLLER): OFPP_TABLE through its
 * tables, where the translated rules of the in_port are, and NORMAL and groups there, which reach
 * ports on other switches over the PCIe links as the rules' packets do. Pure.
 */
public final class PacketOutTranslator {
    /** One physical PACKET_OUT: switch, physical in_port, actions. */
    public record Part(String switchId, OFPort inPort, List<Action> actions) {
        public Part {
            Objects.requireNonNull(switchId, "switchId");
            Objects.requireNonNull(inPort, "inPort");
            actions = List.copyOf(actions);
        }
    }

    private final Topology topology;

    public PacketOutTranslator(Topology topology) {
        this.topology = topology;
    }

    /** The physical packet-outs for a virtual one from {@code inPort} with {@code actions}. */
    public List<Part> translate(OFPort inPort, List<Action> actions, PortMap ports) throws OpenFlowException {
        RuleValidator.actions(actions);
        boolean fromPort = RuleValidator.isDataPort(inPort);
        if (!fromPort && !inPort.equals(OFPort.CONTROLLER) && !inPort.equals(OFPort.ANY)) {
            throw new BadRequestException(OFBadRequestCode.BAD_PORT, "packet_out in_port " + inPort
                    + " is neither a virtual port nor CONTROLLER");
        }
        Optional<PortMapping> in = fromPort ? ports.get(inPort) : Optional.empty();
        boolean toTable = actions.stream().anyMatch(a -> a instanceof Action.Output o && o.port().equals(OFPort.TABLE));
        if (toTable && in.isEmpty()) {
            throw new BadActionException(OFBadActionCode.BAD_OUT_PORT,
                    "output to TABLE needs in_port to be a mapped virtual port, not " + inPort);
        }
        if (topology.switches().isEmpty()) {
            return List.of();
        }
        Optional<PhysicalPort> ingress = in.flatMap(m -> ports.ingress(m.virtualPort()));
        String ingressSwitch = ingress.map(PhysicalPort::switchId).orElse(topology.hostId());
        List<Part> parts = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            List<Action> local = Localizer.forPacketOut(s.id(), ports, s.id().equals(ingressSwitch),
                    fromPort ? inPort : null).actionList(actions);
            int last = lastOutput(local);
            if (last >= 0) {
                parts.add(new Part(s.id(), physicalInPort(s.id(), in, ingress), local.subList(0, last + 1)));
            }
        }
        return parts;
    }

    /**
     * The in_port of the copy {@code switchId} sends: the port where the packet enters the pipeline
     * on its ingress switch, the port itself on its own switch (a homed port's: outputs to it are
     * dropped there and IN_PORT reaches it, as on one bridge), CONTROLLER elsewhere.
     */
    private static OFPort physicalInPort(String switchId, Optional<PortMapping> in, Optional<PhysicalPort> ingress) {
        if (ingress.isPresent() && ingress.get().switchId().equals(switchId)) {
            return ingress.get().port();
        }
        if (in.isPresent() && in.get().physical().switchId().equals(switchId)) {
            return in.get().physical().port();
        }
        return OFPort.CONTROLLER;
    }

    /** The index of the last output or group of {@code actions} (-1 if none): what follows it changes nothing. */
    private static int lastOutput(List<Action> actions) {
        for (int i = actions.size() - 1; i >= 0; i--) {
            if (actions.get(i) instanceof Action.Output || actions.get(i) instanceof Action.Group) {
                return i;
            }
        }
        return -1;
    }
}
