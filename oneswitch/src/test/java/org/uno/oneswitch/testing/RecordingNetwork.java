package org.uno.oneswitch.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMeterModCommand;
import org.projectfloodlight.openflow.protocol.OFPortFeatures;
import org.projectfloodlight.openflow.protocol.OFPortState;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.codec.MeterModCodec;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.core.PhysicalNetwork;
import org.uno.oneswitch.error.PhysicalErrors;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.PortModRequest;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.plan.PlanChange;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.stats.EntryCounters;
import org.uno.oneswitch.stats.GroupCounters;
import org.uno.oneswitch.stats.MeterCounters;
import org.uno.oneswitch.stats.PortCounters;
import org.uno.oneswitch.stats.PortDescription;
import org.uno.oneswitch.stats.TableCounters;
import org.uno.oneswitch.translate.Layout;

/**
 * An in-memory stand-in for the physical switches (like Open vSwitch's dummy datapath): it keeps
 * the flow entries the core installs (as the OpenFlow messages the southbound would send), answers
 * counter requests from counters the test sets, and lets the test decide when barriers complete
 * and which changes fail.
 */
public final class RecordingNetwork implements PhysicalNetwork {
    /** What every group's copy, and each of its buckets, reports in group stats. */
    public static final Counts COPY_COUNTS = new Counts(10, 1000);
    private final Set<String> connected = new HashSet<>();
    private final Map<String, List<OFMessage>> sent = new LinkedHashMap<>();
    private final Map<String, Map<OFPort, PortDescription>> ports = new HashMap<>();
    /** Flow entries as installed: switch -> cookie -> add message. */
    private final Map<String, Map<U64, OFFlowMod>> flows = new HashMap<>();
    private final Map<String, Map<Integer, OFGroupMod>> groups = new HashMap<>();
    /** How many times each switch was settled. */
    public final Map<String, Integer> settled = new HashMap<>();
    private final Map<U64, long[]> counters = new HashMap<>();
    private final List<CompletableFuture<Void>> barriers = new ArrayList<>();
    private boolean holdBarriers;
    private OFErrorMsg nextError;

    public RecordingNetwork(Topology topology) {
        for (SwitchSpec s : topology.switches()) {
            connected.add(s.id());
            Map<OFPort, PortDescription> p = new LinkedHashMap<>();
            for (PortSpec ps : s.ports()) {
                MacAddress mac = MacAddress.of(0x020000000000L + ps.number().getPortNumber());
                p.put(ps.number(), new PortDescription(ps.number(), ps.name(), mac, Set.of(), Set.of(OFPortState.LIVE),
                        Set.of(OFPortFeatures.PF_10GB_FD), Set.of(), Set.of(), Set.of(), 10_000_000, 0));
            }
            ports.put(s.id(), p);
        }
    }

    /** Makes {@code port} of {@code switchId} lose (or regain) its link, as a PORT_STATUS would report. */
    public void link(String switchId, OFPort port, boolean up) {
        PortDescription d = ports.get(switchId).get(port);
        ports.get(switchId).put(port, new PortDescription(port, d.name(), d.hwAddr(), d.config(),
                up ? Set.of(OFPortState.LIVE) : Set.of(OFPortState.LINK_DOWN), d.curr(), d.advertised(), d.supported(),
                d.peer(), d.currSpeed(), d.maxSpeed()));
    }

    /** Messages sent to {@code switchId} so far (and forgets them). */
    public List<OFMessage> takeSent(String switchId) {
        List<OFMessage> out = sent.getOrDefault(switchId, new ArrayList<>());
        sent.remove(switchId);
        return out;
    }

    /** The flow entries on {@code switchId}, as their add messages. */
    public List<OFFlowMod> flows(String switchId) {
        return List.copyOf(flows.getOrDefault(switchId, Map.of()).values());
    }

    /** The groups on {@code switchId}, as their add/modify messages. */
    public List<OFGroupMod> groups(String switchId) {
        return List.copyOf(groups.getOrDefault(switchId, Map.of()).values());
    }

    /** The flow entries of the virtual pipeline on {@code switchId} (OneSwitch's own tables left out). */
    public List<OFFlowMod> pipeline(String switchId) {
        return flows(switchId).stream().filter(f -> Layout.virtualTable(f.getTableId().getValue()) >= 0
                && f.getTableId().getValue() < Layout.CLEAR_TABLE).toList();
    }

    /** Makes the entry with {@code cookie} report these counters. */
    public void count(U64 cookie, long packets, long bytes) {
        counters.put(cookie, new long[] {packets, bytes});
    }

    /** Barriers stay pending until {@link #releaseBarriers()}. */
    public void holdBarriers() {
        holdBarriers = true;
    }

    public void releaseBarriers() {
        holdBarriers = false;
        barriers.forEach(b -> b.complete(null));
        barriers.clear();
    }

    /** The next message sent is refused with {@code error}. */
    public void failNext(OFErrorMsg error) {
        nextError = error;
    }

    @Override
    public boolean connected(String switchId) {
        return connected.contains(switchId);
    }

    @Override
    public void apply(PlanChange change, boolean resetCounts, ErrorListener onError) {
        send(change.switchId(), PhysicalMessages.message(change, resetCounts, Fixtures.OF13), onError);
    }

    @Override
    public void meter(String switchId, OFMeterModCommand command, VirtualMeter meter, ErrorListener onError) {
        send(switchId, MeterModCodec.message(Fixtures.OF13, command, meter), onError);
    }

    @Override
    public void portMod(String switchId, PortModRequest change, ErrorListener onError) {
        send(switchId, PhysicalMessages.portMod(change, Fixtures.OF13), onError);
    }

    @Override
    public void packetOut(String switchId, OFPort inPort, List<Action> actions, byte[] data, ErrorListener onError) {
        send(switchId, PhysicalMessages.packetOut(inPort, actions, data, Fixtures.OF13), onError);
    }

    private void send(String switchId, OFMessage.Builder builder, ErrorListener onError) {
        if (!connected(switchId)) {
            return;
        }
        OFMessage msg = builder.build();
        sent.computeIfAbsent(switchId, s -> new ArrayList<>()).add(msg);
        if (nextError != null) {
            OFErrorMsg e = nextError;
            nextError = null;
            onError.onError(switchId, PhysicalErrors.toVirtual(switchId, e));
            return;
        }
        if (msg instanceof OFGroupMod gm) {
            Map<Integer, OFGroupMod> table = groups.computeIfAbsent(switchId, s -> new LinkedHashMap<>());
            switch (gm.getCommand()) {
                case ADD, MODIFY -> table.put(gm.getGroup().getGroupNumber(), gm);
                case DELETE -> table.remove(gm.getGroup().getGroupNumber());
                default -> throw new IllegalStateException("unexpected physical " + gm.getCommand());
            }
        }
        if (msg instanceof OFFlowMod fm) {
            Map<U64, OFFlowMod> table = flows.computeIfAbsent(switchId, s -> new LinkedHashMap<>());
            switch (fm.getCommand()) {
                case ADD, MODIFY_STRICT -> table.put(fm.getCookie(), fm);
                case DELETE_STRICT -> table.remove(fm.getCookie());
                default -> throw new IllegalStateException("unexpected physical " + fm.getCommand());
            }
        }
    }

    private <T> CompletableFuture<List<T>> answer(String switchId, List<T> counters) {
        return connected(switchId) ? CompletableFuture.completedFuture(counters)
                : CompletableFuture.failedFuture(new IllegalStateException("not connected"));
    }

    @Override
    public CompletableFuture<List<EntryCounters>> entryCounters(String switchId, int table, U64 cookie, U64 mask) {
        List<EntryCounters> out = new ArrayList<>();
        for (OFFlowMod fm : flows(switchId)) {
            if ((table < 0 || fm.getTableId().getValue() == table) && (mask.equals(U64.ZERO)
                    || fm.getCookie().and(mask).equals(cookie.and(mask)))) {
                long[] c = counters.getOrDefault(fm.getCookie(), new long[2]);
                out.add(new EntryCounters(fm.getCookie(), new Counts(c[0], c[1])));
            }
        }
        return answer(switchId, out);
    }

    @Override
    public CompletableFuture<List<PortCounters>> portCounters(String switchId, OFPort port) {
        List<PortCounters> out = new ArrayList<>();
        for (OFPort p : ports.getOrDefault(switchId, Map.of()).keySet()) {
            if (port.equals(OFPort.ANY) || port.equals(p)) {
                long n = p.getPortNumber();
                out.add(new PortCounters(p, new Counts(100 * n, 1000 * n), new Counts(200 * n, 2000 * n), 0, 0, 0, 0,
                        0, 0, 0, 0, 0, 0));
            }
        }
        return answer(switchId, out);
    }

    @Override
    public CompletableFuture<List<TableCounters>> tableCounters(String switchId) {
        return answer(switchId, List.of(new TableCounters(0, flows(switchId).size(), 1000, 900)));
    }

    @Override
    public CompletableFuture<List<GroupCounters>> groupCounters(String switchId, OFGroup group) {
        List<GroupCounters> out = new ArrayList<>();
        for (OFGroupMod g : groups(switchId)) {
            if (group.equals(OFGroup.ALL) || g.getGroup().equals(group)) {
                out.add(new GroupCounters(Integer.toUnsignedLong(g.getGroup().getGroupNumber()), 0, COPY_COUNTS,
                        g.getBuckets().stream().map(b -> COPY_COUNTS).toList()));
            }
        }
        return answer(switchId, out);
    }

    @Override
    public CompletableFuture<List<MeterCounters>> meterCounters(String switchId, long meter) {
        return answer(switchId, List.of());
    }

    @Override
    public CompletableFuture<Void> barrier() {
        CompletableFuture<Void> b = new CompletableFuture<>();
        if (holdBarriers) {
            barriers.add(b);
        } else {
            b.complete(null);
        }
        return b;
    }

    @Override
    public CompletableFuture<Void> settle(Collection<String> switches) {
        switches.forEach(s -> settled.merge(s, 1, Integer::sum));
        return barrier();
    }

    @Override
    public Map<OFPort, PortDescription> ports(String switchId) {
        return connected(switchId) ? ports.get(switchId) : Map.of();
    }
}
