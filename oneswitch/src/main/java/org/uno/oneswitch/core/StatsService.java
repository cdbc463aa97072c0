package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFBucketCounter;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFGroupStatsEntry;
import org.projectfloodlight.openflow.protocol.OFGroupStatsReply;
import org.projectfloodlight.openflow.protocol.OFPortStatsEntry;
import org.projectfloodlight.openflow.protocol.OFPortStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFTableStatsEntry;
import org.projectfloodlight.openflow.protocol.OFTableStatsReply;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.codec.InstructionCodec;
import org.uno.oneswitch.codec.MatchCodec;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;
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

    /** FLOW stats entries of the rules {@code filter} selects. */
    public CompletableFuture<List<OFFlowStatsEntry>> flowStats(FlowFilter filter) {
        List<VirtualRule> rules = flows.select(filter);
        return flows.countersOf(rules).thenApply(counts -> {
            OFFactory f = net.factory();
            long now = clock.getAsLong();
            List<OFFlowStatsEntry> out = new ArrayList<>(rules.size());
            for (VirtualRule r : rules) {
                Counts c = counts.getOrDefault(r.id(), Counts.ZERO);
                Age age = Age.since(r.installedNanos(), now);
                out.add(f.buildFlowStatsEntry().setTableId(TableId.of(r.table())).setDurationSec(age.seconds())
                        .setDurationNsec(age.nanos()).setPriority(r.priority())
                        .setIdleTimeout(r.idleTimeout()).setHardTimeout(r.hardTimeout()).setFlags(r.flags())
                        .setCookie(r.cookie()).setPacketCount(U64.of(c.packets())).setByteCount(U64.of(c.bytes()))
                        .setMatch(MatchCodec.encode(r.match(), f))
                        .setInstructions(InstructionCodec.encode(r.instructions(), f)).build());
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
    public CompletableFuture<List<OFPortStatsEntry>> portStats(OFPort port) throws BadRequestException {
        List<PortMapping> wanted = new ArrayList<>();
        if (port.equals(OFPort.ANY)) {
            wanted.addAll(ports.current().mappings());
        } else {
            wanted.add(ports.current().get(port).orElseThrow(() -> new BadRequestException(
                    OFBadRequestCode.BAD_PORT, "no virtual port " + port)));
        }
        Map<String, CompletableFuture<List<OFStatsReply>>> pending = new java.util.LinkedHashMap<>();
        for (SwitchSpec s : topology.switches()) {
            if (net.connected(s.id()) && wanted.stream().anyMatch(m -> m.physical().switchId().equals(s.id()))) {
                OFPort physical = port.equals(OFPort.ANY) ? OFPort.ANY : wanted.get(0).physical().port();
                pending.put(s.id(), net.request(s.id(), net.factory().buildPortStatsRequest().setPortNo(physical)
                        .build()).exceptionally(t -> List.of()));
            }
        }
        return allOf(new ArrayList<>(pending.values())).thenApply(v -> {
            List<OFPortStatsEntry> out = new ArrayList<>();
            for (Map.Entry<String, CompletableFuture<List<OFStatsReply>>> p : pending.entrySet()) {
                for (OFStatsReply r : p.getValue().join()) {
                    for (OFPortStatsEntry e : ((OFPortStatsReply) r).getEntries()) {
                        Optional<OFPort> virtual = ports.current().virtualOf(new PhysicalPort(p.getKey(), e.getPortNo()));
                        if (virtual.isPresent() && wanted.stream().anyMatch(m -> m.virtualPort().equals(virtual.get()))) {
                            out.add(e.createBuilder().setPortNo(virtual.get()).build());
                        }
                    }
                }
            }
            out.sort((a, b) -> Integer.compareUnsigned(a.getPortNo().getPortNumber(), b.getPortNo().getPortNumber()));
            return out;
        });
    }

    /**
     * TABLE stats of every virtual table: virtual table t is physical table t + 1 on every switch
     * (link arrivals stop in OneSwitch's dispatch table 0, so each packet is looked up once).
     */
    public CompletableFuture<List<OFTableStatsEntry>> tableStats() {
        List<CompletableFuture<List<OFStatsReply>>> replies = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            if (net.connected(s.id())) {
                replies.add(net.request(s.id(), net.factory().buildTableStatsRequest().build())
                        .exceptionally(t -> List.of()));
            }
        }
        return allOf(replies).thenApply(v -> {
            long[] lookups = new long[tables];
            long[] matched = new long[tables];
            for (CompletableFuture<List<OFStatsReply>> f : replies) {
                for (OFStatsReply r : f.join()) {
                    for (OFTableStatsEntry e : ((OFTableStatsReply) r).getEntries()) {
                        int t = Layout.virtualTable(e.getTableId().getValue());
                        if (t >= 0 && t < tables) {
                            lookups[t] += e.getLookupCount().getValue();
                            matched[t] += e.getMatchedCount().getValue();
                        }
                    }
                }
            }
            List<OFTableStatsEntry> out = new ArrayList<>(tables);
            for (int t = 0; t < tables; t++) {
                out.add(net.factory().buildTableStatsEntry().setTableId(TableId.of(t)).setActiveCount(table.count(t))
                        .setLookupCount(U64.of(lookups[t])).setMatchedCount(U64.of(matched[t])).build());
            }
            return out;
        });
    }

    /**
     * GROUP stats of virtual group {@code group} (or all for OFPG_ALL): each group's packets and
     * buckets summed over its copies on the switches (a packet uses the copy where it entered).
     */
    public CompletableFuture<List<OFGroupStatsEntry>> groupStats(OFGroup group, List<VirtualGroup> groups,
                                                                 List<VirtualRule> rules) {
        List<VirtualGroup> wanted = groups.stream().filter(g -> group.equals(OFGroup.ALL)
                || g.id() == Integer.toUnsignedLong(group.getGroupNumber())).toList();
        List<CompletableFuture<List<OFStatsReply>>> replies = new ArrayList<>();
        for (SwitchSpec s : topology.switches()) {
            if (net.connected(s.id()) && !wanted.isEmpty()) {
                replies.add(net.request(s.id(), net.factory().buildGroupStatsRequest().setGroup(group).build())
                        .exceptionally(t -> List.of()));
            }
        }
        return allOf(replies).thenApply(v -> {
            Map<Long, long[]> sums = new HashMap<>();
            for (CompletableFuture<List<OFStatsReply>> f : replies) {
                for (OFStatsReply r : f.join()) {
                    for (OFGroupStatsEntry e : ((OFGroupStatsReply) r).getEntries()) {
                        long[] c = sums.computeIfAbsent(Integer.toUnsignedLong(e.getGroup().getGroupNumber()),
                                id -> new long[2 + 2 * e.getBucketStats().size()]);
                        c[0] += e.getPacketCount().getValue();
                        c[1] += e.getByteCount().getValue();
                        for (int i = 0; i < e.getBucketStats().size() && 2 + 2 * i + 1 < c.length; i++) {
                            c[2 + 2 * i] += e.getBucketStats().get(i).getPacketCount().getValue();
                            c[3 + 2 * i] += e.getBucketStats().get(i).getByteCount().getValue();
                        }
                    }
                }
            }
            OFFactory f = net.factory();
            List<OFGroupStatsEntry> out = new ArrayList<>();
            for (VirtualGroup g : wanted) {
                long[] c = sums.getOrDefault(g.id(), new long[2 + 2 * g.buckets().size()]);
                List<OFBucketCounter> buckets = new ArrayList<>();
                for (int i = 0; i < g.buckets().size(); i++) {
                    boolean known = 3 + 2 * i < c.length;
                    buckets.add(f.bucketCounter(U64.of(known ? c[2 + 2 * i] : 0), U64.of(known ? c[3 + 2 * i] : 0)));
                }
                long refs = rules.stream().filter(r -> usesGroup(r, g.id())).count();
                out.add(f.buildGroupStatsEntry().setGroup(OFGroup.of((int) g.id())).setRefCount(refs)
                        .setPacketCount(U64.of(c[0])).setByteCount(U64.of(c[1])).setBucketStats(buckets).build());
            }
            return out;
        });
    }

    private static boolean usesGroup(VirtualRule r, long groupId) {
        return new FlowFilter(FlowFilter.ALL_TABLES, FlowMatch.ANY, false, 0, U64.ZERO,
                U64.ZERO, OFPort.ANY, OFGroup.of((int) groupId)).selects(r);
    }

    private static CompletableFuture<Void> allOf(List<? extends CompletableFuture<?>> fs) {
        return CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new));
    }
}
