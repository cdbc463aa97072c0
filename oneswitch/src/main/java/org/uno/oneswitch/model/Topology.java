package org.uno.oneswitch.model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;

/**
 * The physical switches of one host and the links between them, from the platform description.
 *
 * <p>Invariant: switch ids and datapath ids are unique, every link end is a declared switch, and
 * the links form a tree (the host in the middle, sNICs around it), so between two switches there
 * is exactly one path.
 */
public final class Topology {
    /** A topology without switches (OneSwitch started without a platform description). */
    public static final Topology EMPTY = new Topology(List.of(), List.of());

    private final List<SwitchSpec> switches;
    private final List<Link> links;
    private final Map<String, SwitchSpec> byId = new LinkedHashMap<>();
    private final Map<DatapathId, SwitchSpec> byDpid = new HashMap<>();
    private final Map<PhysicalPort, Link> linkByEnd = new HashMap<>();

    /** Builds a topology; throws IllegalArgumentException when the description is inconsistent. */
    public Topology(List<SwitchSpec> switches, List<Link> links) {
        this.switches = List.copyOf(switches);
        this.links = List.copyOf(links);
        for (SwitchSpec s : this.switches) {
            if (byId.put(s.id(), s) != null) {
                throw new IllegalArgumentException("duplicate switch id " + s.id());
            }
            if (byDpid.put(s.datapathId(), s) != null) {
                throw new IllegalArgumentException("duplicate datapath id " + s.datapathId());
            }
        }
        for (Link l : this.links) {
            for (PhysicalPort end : List.of(l.a(), l.b())) {
                if (!byId.containsKey(end.switchId())) {
                    throw new IllegalArgumentException("link end on unknown switch " + end);
                }
                if (linkByEnd.put(end, l) != null) {
                    throw new IllegalArgumentException("port " + end + " is the end of two links");
                }
            }
        }
        if (!this.switches.isEmpty() && this.links.size() != this.switches.size() - 1) {
            throw new IllegalArgumentException("links must form a tree: " + this.switches.size()
                    + " switches need " + (this.switches.size() - 1) + " links, have " + this.links.size());
        }
        if (!this.switches.isEmpty() && reachable(this.switches.get(0).id()).size() != this.switches.size()) {
            throw new IllegalArgumentException("links must connect every switch");
        }
    }

    public List<SwitchSpec> switches() {
        return switches;
    }

    /**
     * The host's switch (the first switch when none has the host's role, null when there is none):
     * packet-outs from the controller enter there, and it is the pipeline home (see {@link PortMap}).
     */
    public String hostId() {
        return switches.stream().filter(s -> s.role() == SwitchSpec.Role.HOST).findFirst()
                .or(() -> switches.stream().findFirst()).map(SwitchSpec::id).orElse(null);
    }

    public Optional<SwitchSpec> byId(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    public Optional<SwitchSpec> byDatapathId(DatapathId dpid) {
        return Optional.ofNullable(byDpid.get(dpid));
    }

    /** True when {@code port} is an end of an inter-switch link (never visible to the controller). */
    public boolean isLinkPort(PhysicalPort port) {
        return linkByEnd.containsKey(port);
    }

    /** The link ports of {@code switchId}, in port order. */
    public List<OFPort> linkPorts(String switchId) {
        List<OFPort> out = new ArrayList<>();
        for (Link l : links) {
            PhysicalPort end = l.endOn(switchId);
            if (end != null) {
                out.add(end.port());
            }
        }
        out.sort(Comparator.comparingInt(OFPort::getPortNumber));
        return out;
    }

    /**
     * The forwarding tree from {@code root} to every switch in {@code targets} (targets other than
     * the root; the root itself may be listed and is ignored).
     */
    public ForwardingTree tree(String root, Collection<String> targets) {
        Map<String, PhysicalPort> arrival = new HashMap<>(); // switch -> its end of the link from its parent
        Map<String, String> parent = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(root));
        Set<String> seen = new HashSet<>(List.of(root));
        List<String> order = new ArrayList<>();
        while (!queue.isEmpty()) {
            String s = queue.removeFirst();
            order.add(s);
            for (Link l : links) {
                PhysicalPort here = l.endOn(s);
                if (here != null) {
                    PhysicalPort there = l.other(here);
                    if (seen.add(there.switchId())) {
                        parent.put(there.switchId(), s);
                        arrival.put(there.switchId(), there);
                        queue.addLast(there.switchId());
                    }
                }
            }
        }
        Map<String, List<OFPort>> copies = new LinkedHashMap<>();
        copies.put(root, new ArrayList<>());
        for (String target : targets) {
            if (!seen.contains(target)) {
                throw new IllegalArgumentException("switch " + target + " is not reachable from " + root);
            }
            for (String s = target; !s.equals(root) && !copies.containsKey(s); s = parent.get(s)) {
                copies.put(s, new ArrayList<>());
            }
        }
        for (String s : copies.keySet()) {
            if (!s.equals(root)) {
                PhysicalPort parentEnd = linkByEnd.get(arrival.get(s)).other(arrival.get(s));
                copies.get(parentEnd.switchId()).add(parentEnd.port());
            }
        }
        Map<String, ForwardingTree.Node> nodes = new LinkedHashMap<>();
        for (String s : order) {
            List<OFPort> out = copies.get(s);
            if (out != null) {
                out.sort(Comparator.comparingInt(OFPort::getPortNumber));
                Optional<OFPort> in = s.equals(root) ? Optional.empty() : Optional.of(arrival.get(s).port());
                nodes.put(s, new ForwardingTree.Node(in, out));
            }
        }
        return new ForwardingTree(root, nodes);
    }

    private Set<String> reachable(String from) {
        Set<String> seen = new HashSet<>(List.of(from));
        Deque<String> queue = new ArrayDeque<>(seen);
        while (!queue.isEmpty()) {
            String s = queue.removeFirst();
            for (Link l : links) {
                PhysicalPort here = l.endOn(s);
                if (here != null && seen.add(l.other(here).switchId())) {
                    queue.addLast(l.other(here).switchId());
                }
            }
        }
        return seen;
    }
}
