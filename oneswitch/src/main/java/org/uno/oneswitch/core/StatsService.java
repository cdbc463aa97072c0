package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFPortStatsEntry;
import org.projectfloodlight.openflow.protocol.OFPortStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFTableStatsEntry;
import org.projectfloodlight.openflow.protocol.OFTableStatsReply;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.codec.InstructionCodec;
import org.uno.oneswitch.codec.MatchCodec;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.store.VirtualFlowTable;

/**
 * Statistics of the virtual switch, computed from the physical switches: a virtual rule's counters
 * are the sum of its counting entries (where its packets enter, so each packet once), a virtual
 * port's counters are its physical port's, a virtual table's lookups are the physical tables'
 * without the packets that arrived over a link (they were looked up already where they entered).
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

    /** TABLE stats of every virtual table. */
    public CompletableFuture<List<OFTableStatsEntry>> tableStats() {
        List<String> connected = topology.switches().stream().map(SwitchSpec::id).filter(net::connected).toList();
        List<CompletableFuture<List<OFStatsReply>>> tableReplies = new ArrayList<>();
        List<CompletableFuture<List<OFStatsReply>>> portReplies = new ArrayList<>();
        for (String sw : connected) {
            tableReplies.add(net.request(sw, net.factory().buildTableStatsRequest().build()).exceptionally(t -> List.of()));
            portReplies.add(net.request(sw, net.factory().buildPortStatsRequest().setPortNo(OFPort.ANY).build())
                    .exceptionally(t -> List.of()));
        }
        List<CompletableFuture<List<OFStatsReply>>> all = new ArrayList<>(tableReplies);
        all.addAll(portReplies);
        return allOf(all).thenApply(v -> {
            long[] lookups = new long[tables];
            long[] matched = new long[tables];
            for (CompletableFuture<List<OFStatsReply>> f : tableReplies) {
                for (OFStatsReply r : f.join()) {
                    for (OFTableStatsEntry e : ((OFTableStatsReply) r).getEntries()) {
                        int t = e.getTableId().getValue();
                        if (t < tables) {
                            lookups[t] += e.getLookupCount().getValue();
                            matched[t] += e.getMatchedCount().getValue();
                        }
                    }
                }
            }
            long linkArrivals = 0;
            for (int i = 0; i < connected.size(); i++) {
                List<OFPort> links = topology.linkPorts(connected.get(i));
                for (OFStatsReply r : portReplies.get(i).join()) {
                    for (OFPortStatsEntry e : ((OFPortStatsReply) r).getEntries()) {
                        if (links.contains(e.getPortNo())) {
                            linkArrivals += e.getRxPackets().getValue();
                        }
                    }
                }
            }
            if (tables > 0) {
                lookups[0] = Math.max(0, lookups[0] - linkArrivals);
                matched[0] = Math.max(0, matched[0] - linkArrivals);
            }
            List<OFTableStatsEntry> out = new ArrayList<>(tables);
            for (int t = 0; t < tables; t++) {
                out.add(net.factory().buildTableStatsEntry().setTableId(TableId.of(t)).setActiveCount(table.count(t))
                        .setLookupCount(U64.of(lookups[t])).setMatchedCount(U64.of(matched[t])).build());
            }
            return out;
        });
    }

    private static CompletableFuture<Void> allOf(List<? extends CompletableFuture<?>> fs) {
        return CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new));
    }
}
