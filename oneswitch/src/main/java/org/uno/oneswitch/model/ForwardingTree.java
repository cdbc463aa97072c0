package org.uno.oneswitch.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.projectfloodlight.openflow.types.OFPort;

/**
 * The switches a packet visits from the switch it entered to every switch it must leave from, and
 * on each switch the link port it arrives on and the link ports it is copied to.
 *
 * <p>Invariant: the root has no arrival port, every other node has exactly one; iteration over
 * {@link #nodes()} starts with the root and is deterministic.
 */
public record ForwardingTree(String root, Map<String, Node> nodes) {
    /** One switch of the tree. */
    public record Node(Optional<OFPort> arrival, List<OFPort> copies) {
        public Node {
            Objects.requireNonNull(arrival, "arrival");
            copies = List.copyOf(copies);
        }
    }

    public ForwardingTree {
        Objects.requireNonNull(root, "root");
        nodes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(nodes));
        if (!nodes.containsKey(root) || nodes.get(root).arrival().isPresent()) {
            throw new IllegalArgumentException("tree root must be a node without arrival port");
        }
    }

    public Node node(String switchId) {
        return nodes.get(switchId);
    }
}
