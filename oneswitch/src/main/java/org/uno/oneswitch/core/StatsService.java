package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.stats.GroupCounters;
import org.uno.oneswitch.stats.PortCounters;
import org.uno.oneswitch.stats.RuleStats;
import org.uno.oneswitch.stats.TableCounters;
import org.uno.oneswitch.store.VirtualFlowTable;
import org.uno.oneswitch.translate.Layout;

/**
 * Statistics of the virtual switch, computed from the physical switches: a virtual rule's counters
 * are the sum of its counting entries (where its packets enter, so each packet once), a virtual
 * port's counters are its physical port's, a virtual table's lookups are its physical tables'.
 */
public final class StatsService {
    /** Totals of an AGGREGATE request. */
    public record Aggregate(long packets, long bytes, long flows) {
    }

    private final FlowService flows;
    private final PortService ports;
    private final VirtualFlowTable table;
    private final PhysicalNetwork net;
    private final Topology topology;
    private final LongSupplier clock;
    private final int tables;

    public StatsService(FlowService flows, PortService ports, VirtualFlowTable table, PhysicalNetwork net,
                        Topology topology, LongSupplier clock, int tables) {
        this.flows = flows;
        this.ports = ports;
        this.table = table;
        this.net = net;
        this.topology = topology;
        this.clock = clock;
        this.tables = tables;
    }

    /** FLOW stats of the rules {@code filter} selects. */
    public CompletableFuture<List<RuleStats>> flowStats(FlowFilter filter) {
        List<VirtualRule> rules = flows.select(filter);
        return flows.countersOf(rules).thenApply(counts -> {
            long now = clock.getAsLong();
            List<RuleStats> out = new ArrayList<>(rules.size());
            for (VirtualRule r : rules) {
                Age age = Age.since(r.installedNanos(), now);
                out.add(new RuleStats(r, counts.getOrDefault(r.id(), Counts.ZERO), age.seconds(), age.nanos()));
            }
            return out;
        });
    }

    /** AGGREGATE totals of the rules {@code filter} selects. */
    public CompletableFuture<Aggregate> aggregate(FlowFilter filter) {
        List<VirtualRule> rules = flows.select(filter);
        return flows.countersOf(rules).thenApply(counts -> {
            Counts sum = counts.values().stream().reduce(Counts.ZERO, Counts::plus);
            return new Aggregate(sum.packets(), sum.bytes(), rules.size());
        });
    }

    /** PORT_STATS of virtual port {@code port}, or of all virtual ports for OFPP_ANY. */
    public CompletableFuture<List<PortCounters>> portStats(OFPort port) throws BadRequestException {
        List<PortMapping> wanted = new ArrayList<>();
        if (port.equals(OFPort.ANY)) {
            wanted.addAll(ports.current().mappings());
        } else {
            wanted.add(ports.current().get(port).orElseThrow(() -> new BadRequestException(
                    OFBadRequestCode.BAD_PORT, "no virtual port " + port)));
        }
        Map<String, CompletableFuture<List<PortCounters>>> pending = new java.util.LinkedHashMap<>();
        for (SwitchSpec s : topology.switches()) {
            if (net.connected(s.id()) && wanted.stream().anyMatch(m -> m.physical().switchId().equals(s.id()))) {
                OFPort physical = port.equals(OFPort.ANY) ? OFPort.ANY : wanted.get(0).physical().port();
                pending.put(s.id(), net.portCounters(s.id(), physical).exceptionally(t -> List.of()));
            }
        }
        return allOf(new ArrayList<>(pending.values())).thenApply(v -> {
            List<PortCounters> out = new ArrayList<>();
            for (Map.Entry<String, CompletableFuture<List<PortCounters>>> p : pending.entrySet()) {
                for (PortCounters c : p.getValue().join()) {
                    Optional<OFPort> virtual = ports.current().virtualOf(new PhysicalPort(p.getKey(), c.port()));
                    if (virtual.isPresent() && wanted.stream().anyMatch(m -> m.virtualPort().equals(virtual.get()))) {
                        out.add(c.as(virtual.get()));
                    }
                }
            }
            out.sort((a, b) -> Integer.compareUnsigned(a.port().getPortNumber(), b.port().getPortNumber()));
            return out;
        });
    }

    /**
     * TABLE stats of every virtual table: virtual table t is physical table t + 1 on every switch
     * (link arrivals stop in OneSwitch's dispatch table 0, so each packet is looked up once).
     */
    public CompletableFuture<List<TableCounters>> tableStats() {
        List<CompletableFuture<List<TableCounters>>> replies = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            if (net.connected(s.id())) {
                replies.add(net.tableCounters(s.id()).exceptionally(t -> List.of()));
            }
        }
        return allOf(replies).thenApply(v -> {
            long[] lookups = new long[tables];
            long[] matched = new long[tables];
            for (CompletableFuture<List<TableCounters>> f : replies) {
                for (TableCounters c : f.join()) {
                    int t = Layout.virtualTable(c.table());
                    if (t >= 0 && t < tables) {
                        lookups[t] += c.lookups();
                        matched[t] += c.matched();
                    }
                }
            }
            List<TableCounters> out = new ArrayList<>(tables);
            for (int t = 0; t < tables; t++) {
                out.add(new TableCounters(t, table.count(t), lookups[t], matched[t]));
            }
            return out;
        });
    }

    /**
     * GROUP stats of virtual group {@code group} (or all for OFPG_ALL): each group's packets and
     * buckets summed over its copies on the switches (a packet uses the copy where it entered).
     */
    public CompletableFuture<List<GroupCounters>> groupStats(OFGroup group, List<VirtualGroup> groups,
                                                             List<VirtualRule> rules) {
        List<VirtualGroup> wanted = groups.stream().filter(g -> group.equals(OFGroup.ALL)
                || g.id() == Integer.toUnsignedLong(group.getGroupNumber())).toList();
        // The copies have the group's physical id (see PhysicalGroupIds).
        OFGroup asked = group.equals(OFGroup.ALL) || wanted.isEmpty() ? group
                : OFGroup.of((int) wanted.get(0).physicalId());
        List<CompletableFuture<List<GroupCounters>>> replies = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            if (net.connected(s.id()) && !wanted.isEmpty()) {
                replies.add(net.groupCounters(s.id(), asked).exceptionally(t -> List.of()));
            }
        }
        return allOf(replies).thenApply(v -> {
            Map<Long, List<GroupCounters>> copies = new HashMap<>();
            for (CompletableFuture<List<GroupCounters>> f : replies) {
                f.join().forEach(c -> copies.computeIfAbsent(c.group(), id -> new ArrayList<>()).add(c));
            }
            List<GroupCounters> out = new ArrayList<>();
            for (VirtualGroup g : wanted) {
                long refs = rules.stream().filter(r -> usesGroup(r, g.id())).count();
                out.add(sum(g, copies.getOrDefault(g.physicalId(), List.of()), refs));
            }
            return out;
        });
    }

    /** A group's counters from its copies': the packets and each bucket's add up. */
    static GroupCounters sum(VirtualGroup g, List<GroupCounters> copies, long refCount) {
        Counts total = copies.stream().map(GroupCounters::total).reduce(Counts.ZERO, Counts::plus);
        return new GroupCounters(g.id(), refCount, total, Counts.sumEach(g.buckets().size(),
                copies.stream().map(GroupCounters::buckets).toList()));
    }

    private static boolean usesGroup(VirtualRule r, long groupId) {
        return new FlowFilter(FlowFilter.ALL_TABLES, FlowMatch.ANY, false, 0, U64.ZERO,
                U64.ZERO, OFPort.ANY, OFGroup.of((int) groupId)).selects(r);
    }

    private static CompletableFuture<Void> allOf(List<? extends CompletableFuture<?>> fs) {
        return CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new));
    }
}
