package org.uno.oneswitch.core;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.projectfloodlight.openflow.types.DatapathId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.PhysicalPacketIn;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.stats.PortDescription;
import org.uno.oneswitch.store.IdTable;
import org.uno.oneswitch.store.PortMapStore;
import org.uno.oneswitch.store.VirtualFlowTable;
import org.uno.oneswitch.translate.Infrastructure;
import org.uno.oneswitch.translate.Owner;
import org.uno.oneswitch.translate.PhysicalPlan;
import org.uno.oneswitch.translate.TagSpace;
import org.uno.oneswitch.translate.Translation;
import org.uno.oneswitch.translate.Translator;

/**
 * The virtual switch: its identity, its stores and the services the endpoint and REST use, wired
 * together; it also reacts to what happens to the physical switches. One instance per OneSwitch,
 * used only from the event loop (no locking, no singletons).
 */
public final class VirtualSwitch implements PhysicalEvents {
    /** What {@code max_rules} defaults to. */
    public static final int DEFAULT_MAX_RULES = 250_000;
    private static final Logger LOG = LoggerFactory.getLogger(VirtualSwitch.class);
    /** How long a snapshot waits for the switches' counters before it is written with those OneSwitch holds. */
    private static final long COUNTERS_WAIT_MS = 5000;

    private final DatapathId datapathId;
    private final int tables;
    private final Topology topology;
    private final VirtualFlowTable table = new VirtualFlowTable();
    private final IdTable<VirtualGroup> groupTable = IdTable.groups();
    private final IdTable<VirtualMeter> meterTable = IdTable.meters();
    private final PortMapStore portMap = new PortMapStore();
    private final PhysicalPlan plan;
    private final PlanService planner;
    private final FlowService flows;
    private final GroupService groups;
    private final MeterService meters;
    private final PortService ports;
    private final StatsService stats;
    private final PacketService packets;
    private final Drains drains;
    private final LinkCheck linkCheck;
    private final Gate gate = new Gate();
    private final PhysicalNetwork net;
    private final Refusals refusals = new Refusals();
    private final StateLog state;
    private final LongSupplier clock;
    private final Timers timers;
    private final RemapService remaps;
    private final ExplainService explain;

    /** A virtual switch holding at most {@link #DEFAULT_MAX_RULES} virtual rules. */
    public VirtualSwitch(DatapathId datapathId, int tables, Topology topology, PhysicalNetwork net,
                         ControllerNotifier notifier, LongSupplier clock, Timers timers, long remapGraceMillis) {
        this(datapathId, tables, topology, net, notifier, clock, timers, remapGraceMillis, DEFAULT_MAX_RULES);
    }

    /** A virtual switch holding at most {@code maxRules} virtual rules (an add past them is refused, TABLE_FULL). */
    public VirtualSwitch(DatapathId datapathId, int tables, Topology topology, PhysicalNetwork net,
                         ControllerNotifier notifier, LongSupplier clock, Timers timers, long remapGraceMillis,
                         int maxRules) {
        this.datapathId = datapathId;
        this.tables = tables;
        this.topology = topology;
        this.net = net;
        this.clock = clock;
        this.timers = timers;
        this.plan = new PhysicalPlan(new TagSpace());
        this.planner = new PlanService(plan, new Translator(topology, this::live), table, groupTable, net,
                portMap::current);
        Runnable changed = this::changed;
        this.flows = new FlowService(table, groupTable, meterTable, planner, portMap::current, portMap::set,
                topology.hostId(), notifier, clock, changed, refusals, maxRules);
        this.groups = new GroupService(groupTable, planner, flows, portMap::current, changed, refusals);
        this.meters = new MeterService(meterTable, flows, net, topology, changed, refusals);
        this.ports = new PortService(topology, portMap, net, notifier, planner, changed, flows::homed);
        try {
            planner.apply(Map.of(Owner.INFRASTRUCTURE, Infrastructure.of(topology, portMap.current())), false,
                    PlanService::logError);
        } catch (TranslationConflictException e) {
            throw new IllegalStateException("the dispatch entries cannot conflict", e);
        }
        this.stats = new StatsService(flows, ports, table, net, topology, clock, tables);
        this.drains = new Drains(topology, net, timers);
        this.linkCheck = new LinkCheck(topology, net, drains, System::currentTimeMillis);
        this.packets = new PacketService(net, notifier, flows, ports::current, topology, drains,
                planner.groupIds(), new NormalForPacketOuts(planner, timers, gate, clock,
                        Translator.normalMacAgingSeconds() * 1000L), gate);
        this.remaps = new RemapService(ports, planner, net, drains, timers, gate, clock, remapGraceMillis);
        this.explain = new ExplainService(planner, flows, groups);
        this.state = new StateLog(table, groupTable, meterTable, portMap, plan.tags(), plan::nextCookie, clock, timers, gate,
                new StateLog.Host() {
                    @Override
                    public SavedState save() {
                        return VirtualSwitch.this.save(clock.getAsLong(), System.currentTimeMillis());
                    }

                    @Override
                    public CompletableFuture<SavedState> withCounters(SavedState s) {
                        return VirtualSwitch.this.withCounters(s);
                    }

                    @Override
                    public void revert(StateLog.Undo undo) {
                        VirtualSwitch.this.revert(undo);
                    }
                });
    }

    public DatapathId datapathId() {
        return datapathId;
    }

    /** How many flow tables the virtual switch has (0..tables-1). */
    public int tables() {
        return tables;
    }

    public Topology topology() {
        return topology;
    }

    public FlowService flows() {
        return flows;
    }

    public GroupService groups() {
        return groups;
    }

    public MeterService meters() {
        return meters;
    }

    public PlanService planner() {
        return planner;
    }

    public PortService ports() {
        return ports;
    }

    public StatsService stats() {
        return stats;
    }

    public PacketService packets() {
        return packets;
    }

    public RemapService remaps() {
        return remaps;
    }

    /** The latest check of each connected switch's PCIe links (see {@link LinkCheck}). */
    public Map<String, LinkCheck.Result> linkChecks() {
        return linkCheck.results();
    }

    public ExplainService explain() {
        return explain;
    }

    /**
     * Completes once everything sent to the switches so far is in effect on every connected switch,
     * the undo of any request refused meanwhile included: the answer to a controller's barrier.
     */
    public CompletableFuture<Void> barrier() {
        long undone = refusals.undone();
        return net.barrier().thenCompose(v -> refusals.undone() == undone ? CompletableFuture.completedFuture(null)
                : barrier());
    }

    /** Closed while a remap is being applied: controller requests and timeouts wait. */
    public Gate gate() {
        return gate;
    }

    /** How many virtual rules are installed. */
    public int virtualRuleCount() {
        return table.size();
    }

    /** How many physical entries the virtual rules need. */
    public int physicalEntryCount() {
        return plan.size();
    }

    /** The state file's log: acknowledgements wait for it, and changes are refused while it cannot be written. */
    public StateLog state() {
        return state;
    }

    /** An operation changed the persistent state (the stores told the log what): it goes into the next record. */
    private void changed() {
        state.changed();
    }

    /**
     * What a restart needs, as of now ({@code nowNanos} on the virtual switch's clock, {@code wallMillis}
     * on the wall clock), without counters (see {@link #withCounters}).
     */
    public SavedState save(long nowNanos, long wallMillis) {
        List<VirtualRule> rules = List.copyOf(table.all());  // made from the table's columns: once
        Map<Long, Long> installed = new HashMap<>();
        rules.forEach(r -> installed.put(r.id(), wallMillis - Math.max(0, nowNanos - r.installedNanos()) / 1_000_000));
        return new SavedState(rules, installed, table.nextId(), groups.all(), meters.all(),
                List.copyOf(portMap.current().mappings()), plan.tags().allocations(), plan.nextCookie(), Map.of());
    }

    /**
     * {@code s} with the counters of its rules, read from the switches (those OneSwitch holds only,
     * for a switch that does not answer within {@value #COUNTERS_WAIT_MS} ms).
     */
    public CompletableFuture<SavedState> withCounters(SavedState s) {
        CompletableFuture<SavedState> out = new CompletableFuture<>();
        flows.savedCounters(s.rules()).whenComplete((c, t) -> out.complete(s.withCounters(t == null ? c : Map.of())));
        timers.schedule(COUNTERS_WAIT_MS, () -> {
            if (!out.isDone()) {
                LOG.warn("state file: the switches' counters did not come within {} ms; saving those OneSwitch holds",
                        COUNTERS_WAIT_MS);
                Map<Long, RuleCounters> held = new HashMap<>();
                s.rules().forEach(r -> held.put(r.id(), planner.held(r.id())));
                out.complete(s.withCounters(held));
            }
        });
        return out;
    }

    /**
     * Puts back what the state file holds (undoing changes that could not be written): groups and
     * rules, then the port map, and sends what that changes in the plan to the switches.
     */
    private void revert(StateLog.Undo undo) {
        undo.meters().forEach(meters::revert);
        undo.groups().forEach(groups::revert);
        undo.rules().forEach((id, r) -> {
            if (r == null) {
                flows.revert(id, null);
            }
        });
        undo.rules().forEach((id, r) -> {
            if (r != null) {
                flows.revert(id, r);
            }
        });
        try {
            Map<Owner, Translation> translations;
            if (undo.ports() != null) {
                ports.revert(undo.ports());
                translations = planner.translateAll(portMap.current());
            } else {
                translations = new LinkedHashMap<>();
                for (long id : undo.groups().keySet()) {
                    VirtualGroup g = groupTable.get(id).orElse(null);
                    translations.put(Owner.group(id), g == null ? Translation.EMPTY
                            : planner.translate(g, portMap.current()));
                }
                for (long id : undo.rules().keySet()) {
                    VirtualRule r = table.byId(id).orElse(null);
                    translations.put(Owner.rule(id), r == null ? Translation.EMPTY
                            : planner.translate(r, portMap.current()));
                }
            }
            planner.apply(translations, false, PlanService::logError);
        } catch (OpenFlowException e) {
            LOG.error("state file: the state it holds cannot be translated again: {}", e.getMessage());
        }
        flows.rehome();
    }

    /**
     * Puts back a saved state (at start, before switches and controllers connect): port map,
     * tags, groups and rules, then plans their translation; the switches are reconciled with it
     * when they connect (equal entries are kept, with their counters).
     */
    public void restore(SavedState saved, long nowNanos, long wallMillis) throws TranslationConflictException {
        ports.restore(PortMap.of(saved.ports()));
        plan.tags().restore(saved.tags());
        plan.continueCookiesFrom(saved.nextCookie());
        saved.meters().forEach(meters::restore);
        saved.groups().forEach(groups::restore);
        for (VirtualRule r : saved.rules()) {
            long age = Math.max(0, wallMillis - saved.installedMillis().getOrDefault(r.id(), wallMillis)) * 1_000_000;
            flows.restore(r.toBuilder().installedNanos(nowNanos - age).build());
            planner.restoreCounters(r.id(), saved.counters().getOrDefault(r.id(), RuleCounters.ZERO));
        }
        table.continueIdsFrom(saved.nextRuleId());
        portMap.set(flows.homed(portMap.current()));
        planner.apply(planner.translateAll(portMap.current()), false, PlanService::logError);
        LOG.info("restored {} virtual rules, {} groups, {} meters, {} virtual ports, {} flow-id tags",
                saved.rules().size(), saved.groups().size(), saved.meters().size(), saved.ports().size(),
                saved.tags().size());
    }

    @Override
    public void switchConnected(String switchId, SwitchTables reported) {
        LOG.info("physical switch {} connected", switchId);
        gate.whenOpen(() -> {
            meters.reconcile(switchId, reported);  // first: the entries sent from here on may apply them
            ports.physicalPortsChanged(switchId);
            planner.followLiveness(switchId, portMap.current());
            planner.reconcile(switchId, reported.entries(), reported.groups());
            linkCheck.check(switchId);
        });
    }

    @Override
    public void switchDisconnected(String switchId) {
        LOG.warn("physical switch {} disconnected", switchId);
        gate.whenOpen(() -> portsOf(switchId));
    }

    @Override
    public void portsChanged(String switchId) {
        gate.whenOpen(() -> portsOf(switchId));
    }

    /** Tells controllers what changed on {@code switchId}'s ports, and makes the other switches' watches follow. */
    private void portsOf(String switchId) {
        ports.physicalPortsChanged(switchId);
        planner.followLiveness(switchId, portMap.current());
    }

    /**
     * Whether a fast-failover bucket may use physical port {@code p}: as its switch last reported
     * it; live while unknown (its switch not connected), so the bucket then watches the PCIe link.
     */
    private boolean live(PhysicalPort p) {
        PortDescription d = net.ports(p.switchId()).get(p.port());
        return d == null || d.live();
    }

    @Override
    public void packetIn(String switchId, PhysicalPacketIn packetIn) {
        packets.packetIn(switchId, packetIn);
    }
}
