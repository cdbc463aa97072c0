package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;

/**
 * Rewrites virtual instructions and actions into what one physical switch executes.
 *
 * <p>Outputs to virtual ports on this switch become outputs to their physical ports; FLOOD and
 * ALL become explicit outputs (Open vSwitch skips an output to the input port, as the virtual
 * switch does). With {@link TagRoutes}, outputs to ports on other switches become the tag group
 * of those ports: in an action list, the remote outputs between two header changes share one
 * tag group action placed where those outputs were (the packet is the same for all of them);
 * in an action set or a group bucket, executed as an action set by Open vSwitch, the one output
 * that counts becomes it (FLOOD and ALL there become the switch's flood group). NORMAL becomes the
 * switch's NORMAL group ({@link NormalPipeline}). Without routes (packet-outs: every switch sends
 * its own copy) remote outputs are left out, and what runs once for the packet stays only on the
 * ingress switch: the reserved ports of the ingress (IN_PORT, CONTROLLER, TABLE), NORMAL and groups,
 * whose copies there reach ports elsewhere over the links. Goto targets move to the physical table
 * layout. Pure.
 */
final class Localizer {
    private final String switchId;
    private final PortMap ports;
    private final TagRoutes routes;
    private final boolean atIngress;
    private final OFPort ingress;

    /**
     * A localizer for rules and groups on {@code switchId}: remote outputs go through {@code routes};
     * {@code ingress} is the virtual port packets come from when known (FLOOD and ALL skip it), else null.
     */
    Localizer(String switchId, PortMap ports, TagRoutes routes, OFPort ingress) {
        this(switchId, ports, routes, true, ingress);
    }

    private Localizer(String switchId, PortMap ports, TagRoutes routes, boolean atIngress, OFPort ingress) {
        this.switchId = switchId;
        this.ports = ports;
        this.routes = routes;
        this.atIngress = atIngress;
        this.ingress = ingress;
    }

    /**
     * A localizer for a packet-out copy sent by {@code switchId} ({@code atIngress}: where it
     * entered, from virtual port {@code ingress} or null).
     */
    static Localizer forPacketOut(String switchId, PortMap ports, boolean atIngress, OFPort ingress) {
        return new Localizer(switchId, ports, null, atIngress, ingress);
    }

    List<Instruction> instructions(List<Instruction> instructions) throws TranslationConflictException {
        List<Instruction> out = new ArrayList<>(instructions.size());
        for (Instruction ins : instructions) {
            if (ins instanceof Instruction.ApplyActions a) {
                out.add(new Instruction.ApplyActions(actionList(a.actions())));
            } else if (ins instanceof Instruction.WriteActions w) {
                out.add(new Instruction.WriteActions(actionSet(w.actions())));
            } else if (ins instanceof Instruction.GotoTable g) {
                out.add(new Instruction.GotoTable(Layout.physicalTable(g.table())));
            } else {
                out.add(ins);
            }
        }
        return out;
    }

    /** An action list (apply-actions, packet-out). */
    List<Action> actionList(List<Action> actions) throws TranslationConflictException {
        List<Action> out = new ArrayList<>(actions.size() + 1);
        TreeSet<OFPort> remote = new TreeSet<>(Localizer::compare);
        for (Action a : actions) {
            if (a instanceof Action.Output o) {
                route(o, out, remote);
            } else if (a instanceof Action.Group) {
                if (atIngress) {
                    out.add(a);
                }
            } else {
                flush(remote, out);
                out.add(a);
            }
        }
        flush(remote, out);
        return out;
    }

    /** A group bucket's actions (an action set in Open vSwitch). */
    Bucket bucket(Bucket b) throws TranslationConflictException {
        return new Bucket(b.weight(), watch(b.watchPort()), b.watchGroup(), bucketSet(b.actions()));
    }

    /**
     * A write-actions action set: only the output that takes effect is kept, and it becomes a group
     * (a port group, or the tag group of a remote port). In Open vSwitch an action set keeps one
     * output and one group, and runs the group if there is one; outputs written by different
     * tables replace each other, so they must all take the same slot, the group's, or a remote
     * output (a group) written first would win over a local one written later.
     */
    List<Action> actionSet(List<Action> actions) throws TranslationConflictException {
        List<Action> out = new ArrayList<>(actions.size());
        for (Action a : effectiveSet(actions)) {
            if (!(a instanceof Action.Output o)) {
                out.add(a);
            } else if (o.port().equals(OFPort.IN_PORT) || o.port().equals(OFPort.CONTROLLER)
                    || o.port().equals(OFPort.TABLE)) {
                out.add(routes.portGroup(switchId, o));
            } else if (o.port().equals(OFPort.NORMAL)) {
                out.add(NormalPipeline.GROUP);
            } else {
                for (Action x : single(o)) {
                    out.add(x instanceof Action.Output local ? routes.portGroup(switchId, local) : x);
                }
            }
        }
        return out;
    }

    /** A bucket's action set: the output that takes effect stays an output (or becomes a tag group). */
    private List<Action> bucketSet(List<Action> actions) throws TranslationConflictException {
        List<Action> out = new ArrayList<>(actions.size());
        for (Action a : effectiveSet(actions)) {
            if (a instanceof Action.Output o && o.port().equals(OFPort.IN_PORT) && routes.isHome(switchId)) {
                out.add(HomedPorts.inPortOnHome());
            } else if (!(a instanceof Action.Output o) || o.port().equals(OFPort.CONTROLLER)
                    || o.port().equals(OFPort.IN_PORT)) {
                out.add(a);
            } else {
                out.addAll(single(o));
            }
        }
        return out;
    }

    /**
     * One output of an action set, localised: an output to a local port, a tag group, the flood
     * group (FLOOD and ALL: Open vSwitch executes one output of an action set), or nothing.
     */
    private List<Action> single(Action.Output o) throws TranslationConflictException {
        if (o.port().equals(OFPort.FLOOD) || o.port().equals(OFPort.ALL)) {
            return List.of(routes.floodGroup(switchId));
        }
        if (o.port().equals(OFPort.NORMAL)) {
            return List.of(NormalPipeline.GROUP);
        }
        List<Action> out = new ArrayList<>(1);
        TreeSet<OFPort> remote = new TreeSet<>(Localizer::compare);
        route(o, out, remote);
        flush(remote, out);
        return out;
    }

    /**
     * The actions of an action set that take effect in Open vSwitch: the last group, or without a
     * group the last output (CONTROLLER and IN_PORT included: they take the output's place too).
     */
    static List<Action> effectiveSet(List<Action> actions) {
        int lastOutput = -1;
        int lastGroup = -1;
        for (int i = 0; i < actions.size(); i++) {
            if (actions.get(i) instanceof Action.Output) {
                lastOutput = i;
            } else if (actions.get(i) instanceof Action.Group) {
                lastGroup = i;
            }
        }
        List<Action> out = new ArrayList<>(actions.size());
        for (int i = 0; i < actions.size(); i++) {
            Action a = actions.get(i);
            if (a instanceof Action.Output ? i == lastOutput && lastGroup < 0 : !(a instanceof Action.Group)
                    || i == lastGroup) {
                out.add(a);
            }
        }
        return out;
    }

    private void route(Action.Output o, List<Action> local, TreeSet<OFPort> remote)
            throws TranslationConflictException {
        OFPort p = o.port();
        if (p.equals(OFPort.FLOOD) || p.equals(OFPort.ALL)) {
            for (PortMapping m : ports.mappings()) {
                if (!m.virtualPort().equals(ingress)) {
                    target(m, o.maxLen(), local, remote);
                }
            }
        } else if (p.equals(OFPort.NORMAL)) {
            if (atIngress) {
                local.add(NormalPipeline.GROUP);
            }
        } else if (p.equals(OFPort.IN_PORT) && routes != null && routes.isHome(switchId)) {
            local.add(HomedPorts.inPortOnHome());
        } else if (p.equals(OFPort.IN_PORT) && routes == null && ingress != null && ports.isHomed(ingress)) {
            // a packet-out from a homed port: its copy from the port's own switch has it as in_port
            if (ports.physical(ingress).orElseThrow().switchId().equals(switchId)) {
                local.add(o);
            }
        } else if (p.equals(OFPort.IN_PORT) || p.equals(OFPort.CONTROLLER) || p.equals(OFPort.TABLE)) {
            if (atIngress) {
                local.add(o);
            }
        } else {
            Optional<PortMapping> m = ports.get(p);
            if (m.isPresent()) {
                target(m.get(), o.maxLen(), local, remote);
            }
        }
    }

    /**
     * Adds an output to a mapped port: on this switch at once; elsewhere to the segment's remote
     * set, which is sent first if it already holds the port (two outputs are two copies).
     */
    private void target(PortMapping m, int maxLen, List<Action> local, TreeSet<OFPort> remote)
            throws TranslationConflictException {
        if (m.physical().switchId().equals(switchId)) {
            local.add(new Action.Output(m.physical().port(), maxLen));
        } else if (routes != null) {
            if (remote.contains(m.virtualPort())) {
                flush(remote, local);
            }
            remote.add(m.virtualPort());
        }
    }

    private void flush(TreeSet<OFPort> remote, List<Action> out) throws TranslationConflictException {
        if (!remote.isEmpty()) {
            out.addAll(routes.sendTo(switchId, remote));
            remote.clear();
        }
    }

    /**
     * The physical port a bucket watches for liveness: the port itself on this switch, for a port
     * elsewhere the PCIe link toward it while that port is live ({@link TagRoutes#watchToward}), a
     * port that does not exist for an unmapped one.
     */
    private OFPort watch(OFPort virtual) {
        if (virtual.equals(OFPort.ANY)) {
            return virtual;
        }
        Optional<PortMapping> m = ports.get(virtual);
        if (m.isEmpty()) {
            return UNMAPPED_WATCH;
        }
        if (m.get().physical().switchId().equals(switchId)) {
            return m.get().physical().port();
        }
        return routes.watchToward(switchId, m.get().physical());
    }

    /** A port number no bridge has: watching it means "never live". */
    static final OFPort UNMAPPED_WATCH = OFPort.of(0xfefe);

    /** Port numbers in unsigned order. */
    static int compare(OFPort a, OFPort b) {
        return Integer.compareUnsigned(a.getPortNumber(), b.getPortNumber());
    }
}
