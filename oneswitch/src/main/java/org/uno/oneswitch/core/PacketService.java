package org.uno.oneswitch.core;

import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import org.projectfloodlight.openflow.protocol.match.MatchFields;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.PhysicalPacketIn;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.translate.Layout;
import org.uno.oneswitch.translate.PacketOutTranslator;

/**
 * Packets between the controller and the data path: a physical PACKET_IN reaches the controller
 * with its virtual in_port and the virtual rule's cookie; a virtual PACKET_OUT leaves from the
 * physical ports of its virtual output ports, each switch sending its own copy.
 */
public final class PacketService {
    private static final Logger LOG = LoggerFactory.getLogger(PacketService.class);

    private final PhysicalNetwork net;
    private final ControllerNotifier notifier;
    private final FlowService flows;
    private final Supplier<PortMap> ports;
    private final PacketOutTranslator translator;
    private final Topology topology;
    private final Drains drains;
    private final PhysicalGroupIds groupIds;
    private final NormalForPacketOuts normal;
    private final Gate gate;
    private long dropped;

    PacketService(PhysicalNetwork net, ControllerNotifier notifier, FlowService flows, Supplier<PortMap> ports,
                  Topology topology, Drains drains, PhysicalGroupIds groupIds, NormalForPacketOuts normal, Gate gate) {
        this.net = net;
        this.notifier = notifier;
        this.flows = flows;
        this.ports = ports;
        this.translator = new PacketOutTranslator(topology);
        this.topology = topology;
        this.drains = drains;
        this.groupIds = groupIds;
        this.normal = normal;
        this.gate = gate;
    }

    /**
     * A PACKET_IN from physical switch {@code switchId}: drain markers (from a PCIe link port) are
     * OneSwitch's own; other packets reach the controller from their virtual port and table.
     */
    public void packetIn(String switchId, PhysicalPacketIn pi) {
        OFPort in = pi.inPort();
        if (in != null && topology.isLinkPort(new PhysicalPort(switchId, in)) && drains.onPacketIn(pi.data())) {
            return;
        }
        int table = Layout.virtualTable(pi.table());
        Optional<OFPort> virtual = in == null || table < 0 ? Optional.empty()
                : in.equals(OFPort.CONTROLLER) ? Optional.of(OFPort.CONTROLLER)
                : ports.get().virtualOfIngress(new PhysicalPort(switchId, in));
        if (virtual.isEmpty()) {
            dropped++;
            LOG.debug("dropped packet-in from {} port {} (not a virtual port; {} so far)", switchId, in, dropped);
            return;
        }
        // reg7 and reg0 are OneSwitch's (the action-set flag, the IN_PORT send): a controller of one switch never sees a register.
        FlowMatch match = pi.match().without(EnumSet.of(MatchFields.IN_PHY_PORT, Layout.ACTION_SET_REGISTER, Layout.IN_PORT_REGISTER))
                .withInPort(virtual.get());
        U64 cookie = flows.ruleOfCookie(pi.cookie()).map(r -> r.cookie()).orElse(pi.cookie());
        notifier.packetIn(new VirtualPacketIn(pi.reason(), table, cookie, match, pi.totalLen(), pi.data()));
    }

    /** A PACKET_OUT of the virtual switch; physical errors it causes go to {@code onError}. */
    public void packetOut(OFPort inPort, List<Action> actions, byte[] data, PhysicalNetwork.ErrorListener onError)
            throws OpenFlowException {
        List<PacketOutTranslator.Part> parts = translator.translate(inPort, groupIds.renameApplied(actions), ports.get());
        if (actions.stream().anyMatch(a -> a instanceof Action.Output o && o.port().equals(OFPort.NORMAL))
                && normal.used()) {
            // NORMAL's tables were just sent: the packet may cross a link to a switch that has not applied
            // them yet. Later requests wait behind the gate, so none overtakes this packet-out.
            gate.close();
            net.settle(topology.switches().stream().map(SwitchSpec::id).toList()).whenComplete((v, t) -> {
                send(parts, data, onError);
                gate.open();
            });
            return;
        }
        send(parts, data, onError);
    }

    private void send(List<PacketOutTranslator.Part> parts, byte[] data, PhysicalNetwork.ErrorListener onError) {
        for (PacketOutTranslator.Part p : parts) {
            net.packetOut(p.switchId(), p.inPort(), p.actions(), data, onError);
        }
    }

    /** How many physical packet-ins were not from a virtual port (dropped). */
    public long droppedPacketIns() {
        return dropped;
    }
}
