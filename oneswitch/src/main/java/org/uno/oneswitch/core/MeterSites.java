package org.uno.oneswitch.core;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.translate.PortDependencies;

/**
 * Where the packets of each meter's rules enter the virtual switch, under the port mappings: a rule
 * with an in_port at that port's switch, one without at every switch with a virtual port. A meter is
 * <em>split</em> when they enter on two switches: one token bucket must still see them all, so the
 * port map then needs a pipeline home (see {@link PortMap}, oneswitch/DESIGN.md "Meters").
 *
 * <p>Counts per meter and switch, so that adding or removing a metered rule costs the same however
 * many rules apply its meter; a change of the mappings counts again from the rules. Pure.
 */
final class MeterSites {
    /** Meter id -> switch -> rules entering there; the key {@code ANYWHERE} counts rules without in_port. */
    private final Map<Long, Map<String, Integer>> counts = new HashMap<>();
    private final Set<Long> split = new HashSet<>();
    private static final String ANYWHERE = "";
    /** The mappings the counts are for, without a pipeline home. */
    private PortMap under = PortMap.EMPTY;
    private Set<String> switchesWithPorts = Set.of();

    /** Counts again, under {@code ports}, the rules {@code metered} (every rule that applies a meter). */
    void recount(PortMap ports, Collection<VirtualRule> metered) {
        under = ports.withPipelineHome(null);
        switchesWithPorts = PortDependencies.switchesWithPorts(under);
        counts.clear();
        split.clear();
        for (VirtualRule r : metered) {
            add(r);
        }
    }

    /** True when the counts are for the mappings of {@code ports}. */
    boolean isFor(PortMap ports) {
        return under.equals(ports.withPipelineHome(null));
    }

    void add(VirtualRule r) {
        change(r, 1);
    }

    void remove(VirtualRule r) {
        change(r, -1);
    }

    /** True when some meter is split. */
    boolean anySplit() {
        return !split.isEmpty();
    }

    /** Whether some meter would be split once the rules {@code out} are gone and the rules {@code in} added. */
    boolean anySplitAfter(Collection<VirtualRule> out, Collection<VirtualRule> in) {
        for (VirtualRule r : out) {
            remove(r);
        }
        for (VirtualRule r : in) {
            add(r);
        }
        boolean after = anySplit();
        for (VirtualRule r : in) {
            remove(r);
        }
        for (VirtualRule r : out) {
            add(r);
        }
        return after;
    }

    /** The meter {@code r} applies, if any. */
    static OptionalLong meterOf(VirtualRule r) {
        for (Instruction i : r.instructions()) {
            if (i instanceof Instruction.Meter m) {
                return OptionalLong.of(m.meterId());
            }
        }
        return OptionalLong.empty();
    }

    private void change(VirtualRule r, int delta) {
        OptionalLong m = meterOf(r);
        if (m.isEmpty()) {
            return;
        }
        Optional<String> at = siteOf(r);
        if (at.isEmpty()) {
            return;  // its in_port is not mapped: its packets enter nowhere
        }
        Map<String, Integer> sites = counts.computeIfAbsent(m.getAsLong(), x -> new HashMap<>());
        sites.merge(at.get(), delta, Integer::sum);
        sites.values().removeIf(n -> n == 0);
        if (sites.isEmpty()) {
            counts.remove(m.getAsLong());
        }
        if (isSplit(sites)) {
            split.add(m.getAsLong());
        } else {
            split.remove(m.getAsLong());
        }
    }

    private Optional<String> siteOf(VirtualRule r) {
        Optional<OFPort> in = r.match().inPort();
        return in.isEmpty() ? Optional.of(ANYWHERE) : under.physical(in.get()).map(PhysicalPort::switchId);
    }

    private boolean isSplit(Map<String, Integer> sites) {
        if (sites.containsKey(ANYWHERE)) {
            return switchesWithPorts.size() > 1;
        }
        return sites.size() > 1;
    }
}
