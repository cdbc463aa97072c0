package org.uno.oneswitch.translate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.Topology;

/**
 * The physical rules that can receive packets arriving on each link port, grouped by
 * {@link Origin}, and the check that keeps them unambiguous.
 *
 * <p>Invariant kept (with {@link PhysicalPlan}): among the rules a link arrival can match on a
 * switch, any two with incompatible origins either cannot match the same packet or do exactly the
 * same thing. Then whichever of them the far switch picks, the packet is treated as the virtual
 * switch would have treated it (the multi-ingress ambiguity of the UNO paper, Fig. 6(a), is
 * refused here; issue 4's flow-id tags will resolve it instead).
 */
final class LinkIndex {
    private final Topology topology;
    /** switch -> link port -> origin -> keys (with how many contributions hold each). */
    private final Map<String, Map<OFPort, Map<Origin, Map<PhysicalKey, Integer>>>> onLink = new HashMap<>();
    /** switch -> origin (table-0 any-port rules) -> keys. */
    private final Map<String, Map<Origin, Map<PhysicalKey, Integer>>> anyPort = new HashMap<>();

    LinkIndex(Topology topology) {
        this.topology = topology;
    }

    void add(PhysicalKey key, Origin origin) {
        Map<Origin, Map<PhysicalKey, Integer>> groups = groupsFor(key, origin);
        if (groups != null) {
            groups.computeIfAbsent(origin, o -> new HashMap<>()).merge(key, 1, Integer::sum);
        }
    }

    void remove(PhysicalKey key, Origin origin) {
        Map<Origin, Map<PhysicalKey, Integer>> groups = groupsFor(key, origin);
        if (groups == null) {
            return;
        }
        Map<PhysicalKey, Integer> keys = groups.get(origin);
        if (keys != null && keys.merge(key, -1, Integer::sum) <= 0) {
            keys.remove(key);
            if (keys.isEmpty()) {
                groups.remove(origin);
            }
        }
    }

    /**
     * Throws when a rule with {@code key}, {@code instructions} and {@code origin} would make some
     * link arrival ambiguous; {@code instructionsOf} gives the instructions of rules already there.
     */
    void check(PhysicalKey key, List<Instruction> instructions, Origin origin,
               Function<PhysicalKey, List<Instruction>> instructionsOf) throws TranslationConflictException {
        if (!origin.seesLinkArrivals()) {
            return;
        }
        String sw = key.switchId();
        if (origin.kind() == Origin.Kind.LINK) {
            OFPort port = key.key().match().inPort().orElseThrow();
            checkGroups(onLink.getOrDefault(sw, Map.of()).getOrDefault(port, Map.of()), key, instructions, origin,
                    instructionsOf);
            checkGroups(anyPort.getOrDefault(sw, Map.of()), key, instructions, origin, instructionsOf);
        } else {
            for (OFPort port : topology.linkPorts(sw)) {
                checkGroups(onLink.getOrDefault(sw, Map.of()).getOrDefault(port, Map.of()), key, instructions, origin,
                        instructionsOf);
            }
        }
    }

    private static void checkGroups(Map<Origin, Map<PhysicalKey, Integer>> groups, PhysicalKey key,
                                    List<Instruction> instructions, Origin origin,
                                    Function<PhysicalKey, List<Instruction>> instructionsOf)
            throws TranslationConflictException {
        for (Map.Entry<Origin, Map<PhysicalKey, Integer>> group : groups.entrySet()) {
            if (group.getKey().compatible(origin)) {
                continue;
            }
            for (PhysicalKey other : group.getValue().keySet()) {
                if (!other.equals(key) && key.key().match().overlaps(other.key().match())
                        && !instructionsOf.apply(other).equals(instructions)) {
                    throw new TranslationConflictException("packets arriving over the link on " + key.switchId()
                            + " could match both " + key.key() + " (" + origin + ") and " + other.key() + " ("
                            + group.getKey() + "), which do different things; this multi-ingress/multi-egress "
                            + "rule set needs flow-id tags, not supported yet");
                }
            }
        }
    }

    private Map<Origin, Map<PhysicalKey, Integer>> groupsFor(PhysicalKey key, Origin origin) {
        if (!origin.seesLinkArrivals()) {
            return null;
        }
        if (origin.kind() == Origin.Kind.LINK) {
            OFPort port = key.key().match().inPort().orElseThrow();
            return onLink.computeIfAbsent(key.switchId(), s -> new HashMap<>()).computeIfAbsent(port, p -> new HashMap<>());
        }
        return anyPort.computeIfAbsent(key.switchId(), s -> new HashMap<>());
    }
}
