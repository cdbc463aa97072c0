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
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFFlowStatsRequest;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPortDesc;
import org.projectfloodlight.openflow.protocol.OFPortFeatures;
import org.projectfloodlight.openflow.protocol.OFPortState;
import org.projectfloodlight.openflow.protocol.OFPortStatsEntry;
import org.projectfloodlight.openflow.protocol.OFPortStatsRequest;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.protocol.OFTableStatsEntry;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.core.PhysicalNetwork;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;

/**
 * An in-memory stand-in for the physical switches (like Open vSwitch's dummy datapath): it keeps
 * the flow entries the core installs, answers stats requests from counters the test sets, and lets
 * the test decide when barriers complete and which messages fail.
 */
public final class RecordingNetwork implements PhysicalNetwork {
    private final Set<String> connected = new HashSet<>();
    private final Map<String, List<OFMessage>> sent = new LinkedHashMap<>();
    private final Map<String, Map<OFPort, OFPortDesc>> ports = new HashMap<>();
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
            Map<OFPort, OFPortDesc> p = new LinkedHashMap<>();
            for (PortSpec ps : s.ports()) {
                p.put(ps.number(), Fixtures.OF13.buildPortDesc().setPortNo(ps.number()).setName(ps.name())
                        .setHwAddr(MacAddress.of(0x020000000000L + ps.number().getPortNumber()))
                        .setState(Set.of(OFPortState.LIVE)).setCurr(Set.of(OFPortFeatures.PF_10GB_FD))
                        .setAdvertised(Set.of()).setSupported(Set.of()).setPeer(Set.of()).setConfig(Set.of())
                        .setCurrSpeed(10_000_000).setMaxSpeed(0).build());
            }
            ports.put(s.id(), p);
        }
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

    /** The flow entries of the virtual pipeline on {@code switchId} (OneSwitch's dispatch table left out). */
    public List<OFFlowMod> pipeline(String switchId) {
        return flows(switchId).stream().filter(f -> f.getTableId().getValue() > 0).toList();
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
    public OFFactory factory() {
        return Fixtures.OF13;
    }

    @Override
    public boolean connected(String switchId) {
        return connected.contains(switchId);
    }

    @Override
    public void send(String switchId, OFMessage.Builder builder, ErrorListener onError) {
        if (!connected(switchId)) {
            return;
        }
        OFMessage msg = builder.build();
        sent.computeIfAbsent(switchId, s -> new ArrayList<>()).add(msg);
        if (nextError != null) {
            OFErrorMsg e = nextError;
            nextError = null;
            onError.onError(switchId, e);
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

    @Override
    public CompletableFuture<List<OFStatsReply>> request(String switchId, OFStatsRequest<?> req) {
        if (!connected(switchId)) {
            return CompletableFuture.failedFuture(new IllegalStateException("not connected"));
        }
        sent.computeIfAbsent(switchId, s -> new ArrayList<>()).add(req);
        OFFactory f = Fixtures.OF13;
        OFStatsReply reply;
        if (req instanceof OFFlowStatsRequest fr) {
            List<OFFlowStatsEntry> entries = new ArrayList<>();
            for (OFFlowMod fm : flows(switchId)) {
                if (fr.getCookieMask().equals(U64.ZERO) || fm.getCookie().equals(fr.getCookie())) {
                    long[] c = counters.getOrDefault(fm.getCookie(), new long[2]);
                    entries.add(f.buildFlowStatsEntry().setTableId(fm.getTableId()).setPriority(fm.getPriority())
                            .setCookie(fm.getCookie()).setMatch(fm.getMatch()).setInstructions(fm.getInstructions())
                            .setPacketCount(U64.of(c[0])).setByteCount(U64.of(c[1])).build());
                }
            }
            reply = f.buildFlowStatsReply().setEntries(entries).build();
        } else if (req instanceof OFPortStatsRequest pr) {
            List<OFPortStatsEntry> entries = new ArrayList<>();
            for (OFPort p : ports.get(switchId).keySet()) {
                if (pr.getPortNo().equals(OFPort.ANY) || pr.getPortNo().equals(p)) {
                    long n = p.getPortNumber();
                    entries.add(f.buildPortStatsEntry().setPortNo(p).setRxPackets(U64.of(100 * n))
                            .setTxPackets(U64.of(200 * n)).setRxBytes(U64.of(1000 * n)).setTxBytes(U64.of(2000 * n))
                            .setRxDropped(U64.ZERO).setTxDropped(U64.ZERO).setRxErrors(U64.ZERO).setTxErrors(U64.ZERO)
                            .setRxFrameErr(U64.ZERO).setRxOverErr(U64.ZERO).setRxCrcErr(U64.ZERO)
                            .setCollisions(U64.ZERO).build());
                }
            }
            reply = f.buildPortStatsReply().setEntries(entries).build();
        } else {
            List<OFTableStatsEntry> entries = List.of(f.buildTableStatsEntry().setTableId(TableId.of(0))
                    .setActiveCount(flows(switchId).size()).setLookupCount(U64.of(1000)).setMatchedCount(U64.of(900))
                    .build());
            reply = f.buildTableStatsReply().setEntries(entries).build();
        }
        return CompletableFuture.completedFuture(List.of(reply));
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
    public Map<OFPort, OFPortDesc> ports(String switchId) {
        return connected(switchId) ? ports.get(switchId) : Map.of();
    }
}
