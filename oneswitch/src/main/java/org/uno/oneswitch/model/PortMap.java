package org.uno.oneswitch.model;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import org.projectfloodlight.openflow.types.OFPort;

/**
 * An immutable snapshot of the port map: virtual port number to physical port, both ways.
 *
 * <p>Invariant: the map is a bijection between the virtual ports and the physical ports it holds;
 * iteration is in ascending (unsigned) virtual port order, so translations are deterministic.
 */
public final class PortMap {
    /** The map without any port. */
    public static final PortMap EMPTY = new PortMap(List.of());

    private final TreeMap<Integer, PortMapping> byVirtual = new TreeMap<>(Integer::compareUnsigned);
    private final Map<PhysicalPort, PortMapping> byPhysical = new HashMap<>();

    private PortMap(Collection<PortMapping> mappings) {
        for (PortMapping m : mappings) {
            if (byVirtual.put(m.virtualPort().getPortNumber(), m) != null) {
                throw new IllegalArgumentException("virtual port " + m.virtualPort() + " mapped twice");
            }
            if (byPhysical.put(m.physical(), m) != null) {
                throw new IllegalArgumentException("physical port " + m.physical() + " mapped twice");
            }
        }
    }

    /** A port map holding exactly {@code mappings}; throws IllegalArgumentException on a duplicate. */
    public static PortMap of(Collection<PortMapping> mappings) {
        return new PortMap(mappings);
    }

    /** This map plus {@code m}; throws IllegalArgumentException if either side is already mapped. */
    public PortMap with(PortMapping m) {
        List<PortMapping> all = new ArrayList<>(byVirtual.values());
        all.add(m);
        return new PortMap(all);
    }

    /** This map without virtual port {@code virtualPort} (unchanged if it is not mapped). */
    public PortMap without(OFPort virtualPort) {
        List<PortMapping> all = new ArrayList<>(byVirtual.values());
        all.removeIf(m -> m.virtualPort().equals(virtualPort));
        return new PortMap(all);
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
        return o instanceof PortMap p && byVirtual.equals(p.byVirtual);
    }

    @Override
    public int hashCode() {
        return byVirtual.hashCode();
    }

    @Override
    public String toString() {
        return byVirtual.values().toString();
    }
}
