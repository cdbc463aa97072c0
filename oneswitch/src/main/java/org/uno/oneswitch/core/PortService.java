package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.UnaryOperator;

import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.projectfloodlight.openflow.types.OFPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.PortMapException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.PortNumbers;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.stats.PortDescription;
import org.uno.oneswitch.store.PortMapStore;
import org.uno.oneswitch.translate.Owner;
import org.uno.oneswitch.translate.Translation;

/**
 * The port map and the virtual ports the controller sees. Adding or removing a mapping
 * retranslates the rules first (refused with no change when that conflicts) and then announces
 * PORT_STATUS ADD/DELETE; a change of the physical port (link, config, appearing, vanishing) is
 * announced as PORT_STATUS MODIFY of its virtual port. Link ports are never mapped.
 *
 * <p>Invariant: {@code announced} holds the description last sent (or listed) for every mapped
 * virtual port, so a MODIFY is sent exactly when what the controller sees changes.
 */
public final class PortService {
    private static final Logger LOG = LoggerFactory.getLogger(PortService.class);
    /** The name of the LOCAL port, virtual and physical (Open vSwitch names it after the bridge). */
    static final String LOCAL_NAME = "LOCAL";

    private final Topology topology;
    private final PhysicalNetwork net;
    private final ControllerNotifier notifier;
    private final PlanService planner;
    private final PortMapStore store;
    private final Runnable changed;
    private final Map<Integer, PortDescription> announced = new HashMap<>();
    /** A port map with the pipeline home its rules need under its mappings (see {@code FlowService#homed}). */
    private final UnaryOperator<PortMap> homed;

    /** The port map's service; {@code homed} gives a changed map the pipeline home the rules need under it. */
    public PortService(Topology topology, PortMapStore store, PhysicalNetwork net, ControllerNotifier notifier,
                       PlanService planner, Runnable changed, UnaryOperator<PortMap> homed) {
        this.topology = topology;
        this.homed = homed;
        this.store = store;
        this.net = net;
        this.notifier = notifier;
        this.planner = planner;
        this.changed = changed;
        store.set(withLocal(store.current(), topology));
        localPort(topology).ifPresent(m -> announced.put(m.virtualPort().getPortNumber(), describe(m)));
    }

    /**
     * The virtual switch's LOCAL port, as one Open vSwitch bridge has one: the host bridge's LOCAL
     * port (its internal interface on the host), mapped from the start (so never announced as added;
     * a change of its state is, as any port's) and never moved or removed (the REST API takes only
     * port numbers up to 65279).
     */
    static Optional<PortMapping> localPort(Topology topology) {
        return topology.switches().stream().filter(s -> s.role() == SwitchSpec.Role.HOST).findFirst()
                .map(host -> new PortMapping(OFPort.LOCAL, new PhysicalPort(host.id(), OFPort.LOCAL), LOCAL_NAME,
                        LOCAL_NAME));
    }

    /** {@code map} with the LOCAL port (a map saved before OneSwitch had one has none). */
    static PortMap withLocal(PortMap map, Topology topology) {
        Optional<PortMapping> local = localPort(topology);
        return local.isEmpty() || map.get(OFPort.LOCAL).isPresent() ? map : map.with(local.get());
    }

    /** The current port map. */
    public PortMap current() {
        return store.current();
    }

    /** Maps every declared port of the given kinds, in description order, to the lowest free virtual numbers. */
    public void autoMap(Set<PortSpec.Kind> kinds) throws PortMapException, TranslationConflictException {
        for (SwitchSpec s : topology.switches()) {
            for (PortSpec p : s.ports()) {
                if (kinds.contains(p.kind()) && current().byPhysical(new PhysicalPort(s.id(), p.number())).isEmpty()) {
                    add(new PortRequest(s.id(), p.name(), null, null, null));
                }
            }
        }
    }

    /** Adds a mapping and announces the new virtual port. */
    public PortMapping add(PortRequest req) throws PortMapException, TranslationConflictException {
        PortMapping m = resolve(req);
        PortMap next = homed(current().with(m));
        retranslate(next, m.virtualPort(), m.physical());
        PortDescription desc = describe(m);
        announced.put(m.virtualPort().getPortNumber(), desc);
        notifier.portStatus(OFPortReason.ADD, desc);
        LOG.info("mapped virtual port {} to {} ({})", m.virtualPort(), m.physical(), m.physicalName());
        return m;
    }

    /** Removes the mapping of {@code virtualPort} and announces its deletion. */
    public PortMapping remove(OFPort virtualPort) throws PortMapException {
        PortMapping m = current().get(virtualPort).orElseThrow(() -> new PortMapException(
                PortMapException.Reason.NOT_FOUND, "virtual port " + virtualPort + " is not mapped"));
        PortMap next = homed(current().without(virtualPort));
        try {
            retranslate(next, virtualPort, null);
        } catch (TranslationConflictException e) {
            throw new PortMapException(PortMapException.Reason.CONFLICT, e.getMessage());
        }
        PortDescription desc = announced.remove(virtualPort.getPortNumber());
        notifier.portStatus(OFPortReason.DELETE, desc != null ? desc : describe(m));
        LOG.info("unmapped virtual port {} from {}", virtualPort, m.physical());
        return m;
    }

    /**
     * Retranslates what a change of {@code port} changes under {@code next}, makes it the port map
     * and sends the changes; {@code taken}, the physical port newly mapped (or null), loses the
     * entries a remap kept on it.
     */
    private void retranslate(PortMap next, OFPort port, PhysicalPort taken) throws TranslationConflictException {
        Map<Owner, Translation> translations = planner.translateChanged(current(), next, port);
        if (taken != null) {
            planner.endRetirementsOn(taken, translations);
        }
        var diff = planner.replace(translations);
        store.set(next);
        planner.send(diff.inOrder(), false, PlanService::logError);
        changed.run();
    }

    /**
     * The mapping virtual port {@code virtualPort} would have on the physical port {@code target}
     * names (keeping its virtual name), for a remap; refused like an added mapping would be.
     */
    PortMapping remapped(OFPort virtualPort, PortRequest target) throws PortMapException {
        PortMapping old = current().get(virtualPort).orElseThrow(() -> new PortMapException(
                PortMapException.Reason.NOT_FOUND, "virtual port " + virtualPort + " is not mapped"));
        if (target.virtualPort() != null || target.name() != null) {
            throw new PortMapException(PortMapException.Reason.BAD_REQUEST,
                    "a remap takes only \"switch\" and \"port\" or \"ofport\"");
        }
        PhysicalPortRef p = physicalPort(target);
        PhysicalPort phys = new PhysicalPort(target.switchId(), p.number());
        Optional<PortMapping> taken = current().byPhysical(phys);
        if (taken.isPresent() && !taken.get().virtualPort().equals(virtualPort)) {
            throw new PortMapException(PortMapException.Reason.CONFLICT, "port " + p.name() + " on " + phys.switchId()
                    + " is already virtual port " + taken.get().virtualPort());
        }
        return new PortMapping(virtualPort, phys, p.name(), old.name());
    }

    /** Puts back a saved port map (before anything is translated; controllers connect later). */
    void restore(PortMap saved) {
        store.set(withLocal(saved, topology));
        for (PortMapping m : current().mappings()) {
            announced.put(m.virtualPort().getPortNumber(), describe(m));
        }
    }

    /**
     * Makes {@code durable} the port map again (undoing changes that could not be written) and
     * announces what that changes for the controllers; the caller retranslates.
     */
    void revert(PortMap durable) {
        for (PortMapping m : current().mappings()) {
            if (durable.get(m.virtualPort()).isEmpty()) {
                PortDescription desc = announced.remove(m.virtualPort().getPortNumber());
                notifier.portStatus(OFPortReason.DELETE, desc != null ? desc : describe(m));
            }
        }
        store.set(homed(durable));
        for (PortMapping m : durable.mappings()) {
            PortDescription desc = describe(m);
            PortDescription old = announced.put(m.virtualPort().getPortNumber(), desc);
            if (!desc.equals(old)) {
                notifier.portStatus(old == null ? OFPortReason.ADD : OFPortReason.MODIFY, desc);
            }
        }
    }

    /** {@code map} with the pipeline home the rules need under its mappings. */
    PortMap homed(PortMap map) {
        return homed.apply(map);
    }

    /** Makes {@code next} the port map without telling controllers (a remap is invisible to them). */
    void setQuietly(PortMap next) {
        store.set(next);
        for (PortMapping m : next.mappings()) {
            announced.put(m.virtualPort().getPortNumber(), describe(m));
        }
        changed.run();
    }

    /** The descriptions of all virtual ports, in port order. */
    public List<PortDescription> descriptions() {
        List<PortDescription> out = new ArrayList<>();
        for (PortMapping m : current().mappings()) {
            out.add(describe(m));
        }
        return out;
    }

    /** Announces MODIFY for every virtual port on {@code switchId} whose description changed. */
    public void physicalPortsChanged(String switchId) {
        for (PortMapping m : current().mappings()) {
            if (m.physical().switchId().equals(switchId)) {
                PortDescription desc = describe(m);
                PortDescription old = announced.put(m.virtualPort().getPortNumber(), desc);
                if (!desc.equals(old)) {
                    notifier.portStatus(OFPortReason.MODIFY, desc);
                }
            }
        }
    }

    /** What the controller sees of a mapped port: the physical port's description, renumbered and renamed. */
    public PortDescription describe(PortMapping m) {
        PortDescription phys = net.ports(m.physical().switchId()).get(m.physical().port());
        return phys != null ? phys.as(m.virtualPort(), m.name()) : PortDescription.down(m.virtualPort(), m.name());
    }

    private PortMapping resolve(PortRequest req) throws PortMapException {
        PhysicalPortRef p = physicalPort(req);
        PhysicalPort phys = new PhysicalPort(req.switchId(), p.number());
        Optional<PortMapping> taken = current().byPhysical(phys);
        if (taken.isPresent()) {
            throw new PortMapException(PortMapException.Reason.CONFLICT, "port " + p.name() + " on " + phys.switchId()
                    + " is already virtual port " + taken.get().virtualPort());
        }
        OFPort virtual = req.virtualPort() != null ? checkedVirtual(req.virtualPort()) : lowestFree();
        String name = req.name() != null ? req.name() : p.name();
        if (name.isEmpty() || name.length() > 15) {
            throw new PortMapException(PortMapException.Reason.BAD_REQUEST, "port name must have 1 to 15 characters: '"
                    + name + "'");
        }
        return new PortMapping(virtual, phys, p.name(), name);
    }

    /** The physical port a request names: on a known switch, existing, not a PCIe link port. */
    private PhysicalPortRef physicalPort(PortRequest req) throws PortMapException {
        if (req.switchId() == null || (req.portName() == null) == (req.ofport() == null)) {
            throw new PortMapException(PortMapException.Reason.BAD_REQUEST,
                    "need \"switch\" and exactly one of \"port\" (name) and \"ofport\"");
        }
        SwitchSpec sw = topology.byId(req.switchId()).orElseThrow(() -> new PortMapException(
                PortMapException.Reason.NOT_FOUND, "unknown switch '" + req.switchId() + "'"));
        PhysicalPortRef p = findPort(sw, req);
        if (topology.isLinkPort(new PhysicalPort(sw.id(), p.number()))) {
            throw new PortMapException(PortMapException.Reason.BAD_REQUEST, "port " + p.name() + " on " + sw.id()
                    + " is a PCIe link port, internal to OneSwitch");
        }
        return p;
    }

    private record PhysicalPortRef(String name, OFPort number) {
    }

    /** The port by name or number, from the live switch if connected, else from the description. */
    private PhysicalPortRef findPort(SwitchSpec sw, PortRequest req) throws PortMapException {
        return portWhere(sw, (name, number) -> name.equals(req.portName())
                || (req.ofport() != null && Integer.toUnsignedLong(number.getPortNumber()) == req.ofport()))
                .orElseThrow(() -> new PortMapException(PortMapException.Reason.PORT_NOT_SEEN, "switch " + sw.id()
                        + " has no port " + (req.portName() != null ? "'" + req.portName() + "'" : req.ofport())));
    }

    /** The first port of {@code sw} that {@code wanted} takes: on the live switch, then in the description. */
    private Optional<PhysicalPortRef> portWhere(SwitchSpec sw, BiPredicate<String, OFPort> wanted) {
        for (PortDescription d : net.ports(sw.id()).values()) {
            if (wanted.test(d.name(), d.port())) {
                return Optional.of(new PhysicalPortRef(d.name(), d.port()));
            }
        }
        return sw.ports().stream().filter(s -> wanted.test(s.name(), s.number())).findFirst()
                .map(s -> new PhysicalPortRef(s.name(), s.number()));
    }

    private OFPort checkedVirtual(long n) throws PortMapException {
        if (n < 1 || n > PortNumbers.MAX) {
            throw new PortMapException(PortMapException.Reason.BAD_REQUEST, "virtual port " + n + " out of range");
        }
        OFPort v = OFPort.of((int) n);
        if (current().get(v).isPresent()) {
            throw new PortMapException(PortMapException.Reason.CONFLICT, "virtual port " + n + " is already mapped");
        }
        Optional<String> clash = hostPortAtHomedNumber(v);
        if (clash.isPresent()) {
            throw new PortMapException(PortMapException.Reason.CONFLICT, "virtual port " + n + " would enter the "
                    + "pipeline on the host as number " + PortMap.homedNumber(v) + ", which the host's port "
                    + clash.get() + " has (see DESIGN.md, \"Meters\"): choose another virtual port number");
        }
        return v;
    }

    private OFPort lowestFree() {
        int n = 1;
        while (current().get(OFPort.of(n)).isPresent() || hostPortAtHomedNumber(OFPort.of(n)).isPresent()) {
            n++;
        }
        return OFPort.of(n);
    }

    /**
     * The name of the host's port (on the live bridge or in the description) whose number is {@code v}'s
     * homed number: while the host is the pipeline home, that port's packets would run {@code v}'s rules.
     * Checked for a port on any switch, since a remap moves a port without changing its number. (A port the
     * bridge numbers so later is not caught: Open vSwitch numbers ports up from 1, and a virtual port below
     * 32,768 has a homed number from 32,513 up.)
     */
    private Optional<String> hostPortAtHomedNumber(OFPort v) {
        OFPort homed = PortMap.homedNumber(v);
        return portWhere(topology.byId(topology.hostId()).orElseThrow(), (name, number) -> number.equals(homed))
                .map(PhysicalPortRef::name);
    }
}
