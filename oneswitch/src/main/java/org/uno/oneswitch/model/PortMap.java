package org.uno.oneswitch.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import org.projectfloodlight.openflow.types.OFPort;

/**
 * An immutable snapshot of the port map: virtual port number to physical port, both ways, and where
 * each virtual port's packets enter the virtual pipeline.
 *
 * <p>A port's packets enter the pipeline at its physical port, unless the map has a <em>pipeline
 * home</em>: then the packets of every port on another switch are carried to the home switch, where
 * they run the pipeline with an in_port no bridge port has, a <em>homed</em> port number (see
 * oneswitch/DESIGN.md, "Meters": a meter whose rules' packets enter on two switches needs one switch
 * to see them all).
 *
 * <p>Invariant: the map is a bijection between the virtual ports and the physical ports it holds;
 * iteration is in ascending (unsigned) virtual port order, so translations are deterministic.
 */
public final class PortMap {
    /** The map without any port. */
    public static final PortMap EMPTY = new PortMap(List.of(), null);
    /**
     * Homed port numbers are this less the virtual port number (at most 0xfeff): Open vSwitch numbers a
     * bridge's ports up from 1 and takes none above 0xfeff, and keeps an in_port set to a number it has
     * no port for. So a virtual port below 32,768 has a homed number from 32,513 up, which a bridge
     * would need as many ports to have; the number follows the port alone, so a change of another
     * port's mapping leaves it as it is.
     */
    private static final int HOMED_BASE = 0xff00;

    private final TreeMap<Integer, PortMapping> byVirtual = new TreeMap<>(Integer::compareUnsigned);
    private final Map<PhysicalPort, PortMapping> byPhysical = new HashMap<>();
    private final String home;
    /** Virtual port number -> its ingress on the home switch, for the ports carried there. */
    private final Map<Integer, PhysicalPort> homed = new HashMap<>();
    private final Map<PhysicalPort, PortMapping> byHomed = new HashMap<>();

    private PortMap(Collection<PortMapping> mappings, String home) {
        this.home = home;
        for (PortMapping m : mappings) {
            if (byVirtual.put(m.virtualPort().getPortNumber(), m) != null) {
                throw new IllegalArgumentException("virtual port " + m.virtualPort() + " mapped twice");
            }
            if (byPhysical.put(m.physical(), m) != null) {
                throw new IllegalArgumentException("physical port " + m.physical() + " mapped twice");
            }
        }
        if (home != null) {
            for (PortMapping m : byVirtual.values()) {
                if (!m.physical().switchId().equals(home)) {
                    PhysicalPort in = new PhysicalPort(home, homedNumber(m.virtualPort()));
                    homed.put(m.virtualPort().getPortNumber(), in);
                    byHomed.put(in, m);
                }
            }
        }
    }

    /** A port map holding exactly {@code mappings}; throws IllegalArgumentException on a duplicate. */
    public static PortMap of(Collection<PortMapping> mappings) {
        return new PortMap(mappings, null);
    }

    /** This map plus {@code m}; throws IllegalArgumentException if either side is already mapped. */
    public PortMap with(PortMapping m) {
        List<PortMapping> all = new ArrayList<>(byVirtual.values());
        all.add(m);
        return new PortMap(all, home);
    }

    /** This map without virtual port {@code virtualPort} (unchanged if it is not mapped). */
    public PortMap without(OFPort virtualPort) {
        List<PortMapping> all = new ArrayList<>(byVirtual.values());
        all.removeIf(m -> m.virtualPort().equals(virtualPort));
        return new PortMap(all, home);
    }

    /**
     * The same mappings with every port's packets entering the pipeline on {@code homeSwitch}, or
     * each at its own physical port when null.
     */
    public PortMap withPipelineHome(String homeSwitch) {
        return Objects.equals(homeSwitch, home) ? this : new PortMap(byVirtual.values(), homeSwitch);
    }

    /** The in_port of {@code virtualPort}'s packets on the pipeline home when it is homed. */
    public static OFPort homedNumber(OFPort virtualPort) {
        int n = virtualPort.getPortNumber();
        if (n <= 0 || n >= HOMED_BASE) {
            throw new IllegalArgumentException("virtual port " + virtualPort + " cannot be homed (1 to 65279)");
        }
        return OFPort.of(HOMED_BASE - n);
    }

    /** The switch where every port's packets enter the pipeline, if the map has one. */
    public Optional<String> pipelineHome() {
        return Optional.ofNullable(home);
    }

    /**
     * Where packets of {@code virtualPort} enter the virtual pipeline: its physical port, or on the
     * pipeline home its homed port number.
     */
    public Optional<PhysicalPort> ingress(OFPort virtualPort) {
        PhysicalPort h = homed.get(virtualPort.getPortNumber());
        return h != null ? Optional.of(h) : physical(virtualPort);
    }

    /** True when {@code virtualPort}'s packets are carried to the pipeline home to enter the pipeline. */
    public boolean isHomed(OFPort virtualPort) {
        return homed.containsKey(virtualPort.getPortNumber());
    }

    /** The virtual port whose packets enter the pipeline at {@code ingress} (a physical or a homed port). */
    public Optional<OFPort> virtualOfIngress(PhysicalPort ingress) {
        PortMapping h = byHomed.get(ingress);
        if (h != null) {
            return Optional.of(h.virtualPort());
        }
        return byPhysical(ingress).filter(m -> !isHomed(m.virtualPort())).map(PortMapping::virtualPort);
    }

    public Optional<PortMapping> get(OFPort virtualPort) {
        return Optional.ofNullable(byVirtual.get(virtualPort.getPortNumber()));
    }

    public Optional<PhysicalPort> physical(OFPort virtualPort) {
        return get(virtualPort).map(PortMapping::physical);
    }

    public Optional<PortMapping> byPhysical(PhysicalPort port) {
        return Optional.ofNullable(byPhysical.get(port));
    }

    public Optional<OFPort> virtualOf(PhysicalPort port) {
        return byPhysical(port).map(PortMapping::virtualPort);
    }

    /** All mappings in ascending virtual port order. */
    public Collection<PortMapping> mappings() {
        return Collections.unmodifiableCollection(byVirtual.values());
    }

    public int size() {
        return byVirtual.size();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PortMap p && byVirtual.equals(p.byVirtual) && Objects.equals(home, p.home);
    }

    @Override
    public int hashCode() {
        return byVirtual.hashCode() * 31 + Objects.hashCode(home);
    }

    @Override
    public String toString() {
        return home == null ? byVirtual.values().toString() : byVirtual.values() + " (pipeline home " + home + ")";
    }
}
