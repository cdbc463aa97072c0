package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.OFFlowRemovedReason;
import org.projectfloodlight.openflow.protocol.OFMeterModFailedCode;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.FlowModFailedException;
import org.uno.oneswitch.error.MeterModFailedException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.store.IdTable;
import org.uno.oneswitch.store.VirtualFlowTable;
import org.uno.oneswitch.translate.Owner;
import org.uno.oneswitch.translate.RuleValidator;
import org.uno.oneswitch.translate.Translation;

/**
 * Applies flow_mods to the virtual tables and keeps the physical switches following them:
 * decide ({@link FlowModPlanner}), translate every affected rule, update the plan (all or
 * nothing), commit the virtual change, then send the physical changes. Also expires rules, reads
 * their counters and reports removed rules to controllers.
 *
 * <p>Invariant: the plan is always the translation of exactly the rules in the virtual table
 * under the current port map; a refused request changes neither.
 */
public final class FlowService {
    private static final Logger LOG = LoggerFactory.getLogger(FlowService.class);
    private final VirtualFlowTable table;
    private final IdTable<VirtualGroup> groups;
    private final IdTable<VirtualMeter> meters;
    private final PlanService planner;
    private final Supplier<PortMap> ports;
    private final ControllerNotifier notifier;
    private final LongSupplier clock;
    private final Runnable changed;
    private final Refusals refusals;
    /** The most virtual rules held: what a controller can make OneSwitch keep is bounded. */
    private final int maxRules;
    private final Expiry expiry = new Expiry();
    /** Meter id -> the ids of the rules that apply it (kept by store and forget, so no check scans the table). */
    private final Map<Long, Set<Long>> meterUsers = new HashMap<>();
    /** Where the metered rules' packets enter, for the pipeline home (see {@link #homed}). */
    private final MeterSites sites = new MeterSites();
    private final Consumer<PortMap> setPorts;
    /** The switch that becomes the pipeline home when a meter is split (the host). */
    private final String home;
    private long flowMods;
    private long flowModNanos;
    private boolean idlePollPending;

    /**
     * The flow table's service; {@code ports} reads the port map and {@code setPorts} replaces it when
     * the rules make {@code home} the pipeline home or stop needing one.
     */
    public FlowService(VirtualFlowTable table, IdTable<VirtualGroup> groups, IdTable<VirtualMeter> meters,
                       PlanService planner, Supplier<PortMap> ports, Consumer<PortMap> setPorts, String home,
                       ControllerNotifier notifier, LongSupplier clock, Runnable changed, Refusals refusals,
                       int maxRules) {
        this.table = table;
        this.setPorts = setPorts;
        this.home = home;
        this.maxRules = maxRules;
        this.groups = groups;
        this.meters = meters;
        this.planner = planner;
        this.ports = ports;
        this.notifier = notifier;
        this.clock = clock;
        this.changed = changed;
        this.refusals = refusals;
    }

    /**
     * Applies {@code req}; the first physical error caused by it undoes it (see {@link Refusals})
     * and goes to {@code onError}.
     */
    public void flowMod(FlowModRequest req, PhysicalNetwork.ErrorListener onError) throws OpenFlowException {
        long start = System.nanoTime();
        try {
            apply(req, onError);
        } finally {
            flowMods++;
            flowModNanos += System.nanoTime() - start;
        }
    }

    /** How many flow_mods were handled, and the time spent on them (decided, translated, planned, encoded). */
    public Work flowModWork() {
        return new Work(flowMods, flowModNanos);
    }

    /** A number of requests and the time spent on them. */
    public record Work(long count, long nanos) {
    }

    private void apply(FlowModRequest req, PhysicalNetwork.ErrorListener onError) throws OpenFlowException {
        TableChange change = FlowModPlanner.plan(table, req, clock.getAsLong(), table::newId);
        if (change.isEmpty()) {
            return;
        }
        checkRoom(change);
        for (VirtualRule r : change.upserts()) {
            RuleValidator.rule(r);
            checkGroups(r);
            checkMeterExists(r);
        }
        Map<Long, VirtualRule> before = new LinkedHashMap<>();  // what the upserts replace, in their order
        change.upserts().forEach(r -> table.byId(r.id()).ifPresent(old -> before.put(r.id(), old)));
        PortMap now = ports.get();
        PortMap target = homedAfter(change, before.values(), now);
        Map<Owner, Translation> translations = new LinkedHashMap<>();
        for (VirtualRule r : change.upserts()) {
            translations.put(Owner.rule(r.id()), planner.translate(r, target));
        }
        for (VirtualRule r : change.removals()) {
            translations.put(Owner.rule(r.id()), Translation.EMPTY);
        }
        if (!target.equals(now)) {
            translations = planner.translateAllWith(target, translations);
            LOG.info("pipeline home {}: a meter's rules' packets enter on {} switch", target.pipelineHome()
                    .orElse("none"), target.pipelineHome().isPresent() ? "more than one" : "one");
        }
        CompletableFuture<Map<Long, Counts>> finalCounts = change.removals().isEmpty() ? null
                : countersOf(notifiable(change.removals()));
        boolean reset = req.flags().contains(OFFlowModFlags.RESET_COUNTS);
        var diff = planner.replace(translations);
        change.upserts().forEach(this::store);
        change.removals().forEach(r -> forget(r.id()));
        if (!target.equals(now)) {
            setPorts.accept(target);
        }
        if (reset) {
            change.upserts().forEach(r -> planner.forgetCarried(r.id()));
        }
        planner.send(diff.inOrder(), reset, refusals.of(onError, () -> undo(change, before)));
        changed.run();
        if (finalCounts != null) {
            notifyRemoved(change.removals(), OFFlowRemovedReason.DELETE, finalCounts);
        }
    }

    /** Refuses a change that would hold more than {@code maxRules} virtual rules, as a full table does. */
    private void checkRoom(TableChange change) throws FlowModFailedException {
        if (table.size() + change.upserts().size() - change.removals().size() <= maxRules) {
            return;  // room even if every upsert were new: no need to look them up
        }
        long added = change.upserts().stream()
                .filter(r -> !table.contains(r.id()) && !table.contains(r.key())).count();
        if (added > 0 && table.size() + added - change.removals().size() > maxRules) {
            throw new FlowModFailedException(OFFlowModFailedCode.TABLE_FULL, "OneSwitch holds its limit of "
                    + maxRules + " virtual rules (max_rules)");
        }
    }

    /**
     * Takes back a change a physical switch refused: every rule it stored returns to what it was
     * ({@code before}, or absent), every rule it removed comes back. A rule a later request has
     * changed since keeps that later request's state: the controller's newer word wins.
     */
    private void undo(TableChange change, Map<Long, VirtualRule> before) {
        Map<Owner, Translation> translations = new LinkedHashMap<>();
        List<VirtualRule> restore = new ArrayList<>();
        List<Long> drop = new ArrayList<>();
        try {
            for (VirtualRule r : change.upserts()) {
                if (table.byId(r.id()).filter(r::equals).isEmpty()) {
                    continue;
                }
                VirtualRule old = before.get(r.id());
                if (old == null) {
                    translations.put(Owner.rule(r.id()), Translation.EMPTY);
                    drop.add(r.id());
                } else {
                    translations.put(Owner.rule(r.id()), planner.translate(old, ports.get()));
                    restore.add(old);
                }
            }
            for (VirtualRule r : change.removals()) {
                if (!table.contains(r.id())) {
                    translations.put(Owner.rule(r.id()), planner.translate(r, ports.get()));
                    restore.add(r);
                }
            }
            planner.apply(translations, false, PlanService::logError);
        } catch (OpenFlowException e) {
            LOG.error("cannot undo a refused flow_mod (the virtual rules stay as the request left them): {}",
                    e.describe());
            return;
        }
        restore.forEach(this::store);
        drop.forEach(this::forget);
        rehome();
        changed.run();
    }

    /** Removes every rule that applies group {@code groupId} (the group is being deleted). */
    void removeUsersOf(long groupId) {
        removeAll(table.select(new FlowFilter(FlowFilter.ALL_TABLES, FlowMatch.ANY, false, 0, U64.ZERO, U64.ZERO,
                OFPort.ANY, OFGroup.of((int) groupId))), OFFlowRemovedReason.GROUP_DELETE);
    }

    /**
     * Removes every rule that applies meter {@code meterId} (the meter is being deleted); OpenFlow 1.3
     * has no removal reason for it, so controllers hear DELETE.
     */
    void removeUsersOfMeter(long meterId) {
        removeAll(usersOfMeter(meterId), OFFlowRemovedReason.DELETE);
    }

    /** The rules that apply meter {@code meterId}. */
    List<VirtualRule> usersOfMeter(long meterId) {
        return meterUsers.getOrDefault(meterId, Set.of()).stream().map(id -> table.byId(id).orElseThrow()).toList();
    }

    private void removeAll(List<VirtualRule> users, OFFlowRemovedReason reason) {
        if (users.isEmpty()) {
            return;
        }
        CompletableFuture<Map<Long, Counts>> finalCounts = countersOf(notifiable(users));
        Map<Owner, Translation> gone = new LinkedHashMap<>();
        users.forEach(r -> gone.put(Owner.rule(r.id()), Translation.EMPTY));
        try {
            planner.apply(gone, false, PlanService::logError);
        } catch (TranslationConflictException e) {
            throw new IllegalStateException("removing rules cannot conflict", e);
        }
        users.forEach(r -> forget(r.id()));
        rehome();
        notifyRemoved(users, reason, finalCounts);
    }

    /** Expires rules whose hard timeout passed, and (one poll at a time) idle ones. */
    public void tick() {
        long now = clock.getAsLong();
        List<Expiry.Expired> hard = Expiry.hard(table.timed(), now);
        hard.forEach(e -> remove(e.rule(), e.reason()));
        List<VirtualRule> idleRules = table.timed().stream().filter(r -> r.idleTimeout() > 0).toList();
        if (idleRules.isEmpty() || idlePollPending) {
            return;
        }
        idlePollPending = true;
        countersOf(idleRules).whenComplete((counts, t) -> {
            idlePollPending = false;
            if (t == null) {
                List<VirtualRule> current = idleRules.stream()
                        .filter(r -> table.byId(r.id()).filter(r::equals).isPresent()).toList();
                expiry.idle(current, counts, clock.getAsLong()).forEach(e -> remove(e.rule(), e.reason()));
            }
        });
    }

    /** The counters of each of {@code rules}, summed over their counting entries, by rule id. */
    public CompletableFuture<Map<Long, Counts>> countersOf(Collection<VirtualRule> rules) {
        if (rules.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        Map<Long, Counts> physical = new HashMap<>();
        return fetchCounting(rules, (id, switchId, c) -> physical.merge(id, c, Counts::plus)).thenApply(v -> {
            Map<Long, Counts> out = new HashMap<>();
            for (VirtualRule r : rules) {
                out.put(r.id(), planner.carried(r.id()).plus(physical.getOrDefault(r.id(), Counts.ZERO)));
            }
            return out;
        });
    }

    /** The counters of each of {@code rules} as a snapshot of the state file keeps them (by switch), by rule id. */
    CompletableFuture<Map<Long, RuleCounters>> savedCounters(Collection<VirtualRule> rules) {
        Map<Long, Map<String, Counts>> physical = new HashMap<>();
        return fetchCounting(rules, (id, switchId, c) -> physical.computeIfAbsent(id, x -> new HashMap<>())
                .merge(switchId, c, Counts::plus)).thenApply(v -> {
                    Map<Long, RuleCounters> out = new HashMap<>();
                    for (VirtualRule r : rules) {
                        RuleCounters held = planner.held(r.id());
                        Map<String, Counts> bySwitch = new HashMap<>(held.bySwitch());
                        physical.getOrDefault(r.id(), Map.of()).forEach((sw, c) -> bySwitch.merge(sw, c, Counts::plus));
                        RuleCounters saved = new RuleCounters(held.carried(), bySwitch);
                        if (!saved.isZero()) {
                            out.put(r.id(), saved);
                        }
                    }
                    return out;
                });
    }

    /** Receives the counters of one counting entry of a rule. */
    private interface EntryCounts {
        void accept(long ruleId, String switchId, Counts counts);
    }

    /** Reads the counters of the counting entries of {@code rules} and hands each to {@code each}. */
    private CompletableFuture<Void> fetchCounting(Collection<VirtualRule> rules, EntryCounts each) {
        List<InstalledEntry> entries = new ArrayList<>();
        Map<Long, List<InstalledEntry>> byRule = new HashMap<>();
        for (VirtualRule r : rules) {
            for (InstalledEntry e : planner.plan().countingEntries(r.id())) {
                entries.add(e);
                byRule.computeIfAbsent(r.id(), id -> new ArrayList<>()).add(e);
            }
        }
        return planner.counters().fetch(entries).thenAccept(byCookie -> byRule.forEach((id, es) -> {
            for (InstalledEntry e : es) {
                each.accept(id, e.key().switchId(), byCookie.getOrDefault(e.cookie(), Counts.ZERO));
            }
        }));
    }

    /** The virtual rule whose counting entry has physical cookie {@code cookie}. */
    public Optional<VirtualRule> ruleOfCookie(U64 cookie) {
        return planner.plan().countingOwner(cookie).flatMap(table::byId);
    }

    /** The rule with OneSwitch id {@code id}. */
    public Optional<VirtualRule> rule(long id) {
        return table.byId(id);
    }

    /** The rules {@code filter} selects. */
    public List<VirtualRule> select(FlowFilter filter) {
        return table.select(filter);
    }

    /** Every rule, in installation order. */
    public Collection<VirtualRule> all() {
        return table.all();
    }

    /** Puts back a saved rule (its translation is planned with everything else afterwards). */
    void restore(VirtualRule r) {
        store(r);
    }

    /**
     * Makes rule {@code id} what the state file holds, {@code durable} or nothing (undoing a change
     * that could not be written); the caller plans the translation.
     */
    void revert(long id, VirtualRule durable) {
        if (durable == null) {
            forget(id);
        } else {
            store(durable);
        }
    }

    /** Stores {@code r} (new or replacing the rule with its id). */
    private void store(VirtualRule r) {
        table.byId(r.id()).ifPresent(this::unindex);
        table.put(r);
        MeterSites.meterOf(r).ifPresent(m -> meterUsers.computeIfAbsent(m, x -> new TreeSet<>()).add(r.id()));
        sites.add(r);
    }

    /** Takes {@code r} out of the meter index (it is being replaced or removed). */
    private void unindex(VirtualRule r) {
        sites.remove(r);
        MeterSites.meterOf(r).ifPresent(m -> {
            Set<Long> users = meterUsers.get(m);
            users.remove(r.id());
            if (users.isEmpty()) {
                meterUsers.remove(m);
            }
        });
    }

    /** Refuses a rule applying a group that does not exist (OpenFlow's BAD_OUT_GROUP). */
    private void checkGroups(VirtualRule r) throws BadActionException {
        for (Instruction ins : r.instructions()) {
            GroupService.requireExisting(groups, Instruction.actionsOf(ins));
        }
    }

    /** Refuses a rule applying a meter that does not exist (UNKNOWN_METER, as Open vSwitch answers). */
    private void checkMeterExists(VirtualRule r) throws MeterModFailedException {
        OptionalLong m = MeterSites.meterOf(r);
        if (m.isPresent() && meters.get(m.getAsLong()).isEmpty()) {
            throw new MeterModFailedException(OFMeterModFailedCode.UNKNOWN_METER, "meter " + m.getAsLong()
                    + " does not exist");
        }
    }

    /**
     * {@code ports} with the pipeline home the rules need under its mappings: the host when a meter is
     * split (its rules' packets enter on two switches, see {@link MeterSites}), else none.
     */
    public PortMap homed(PortMap ports) {
        return ports.withPipelineHome(sitesFor(ports).anySplit() ? home : null);
    }

    /** {@code now} with the pipeline home the rules need once {@code change} is made, replacing {@code replaced}. */
    private PortMap homedAfter(TableChange change, Collection<VirtualRule> replaced, PortMap now) {
        List<VirtualRule> out = new ArrayList<>(change.removals());
        out.addAll(replaced);
        if (!anyMetered(out) && !anyMetered(change.upserts())) {
            return now;  // no metered rule comes or goes: the home the port map has is still the one needed
        }
        return now.withPipelineHome(sitesFor(now).anySplitAfter(out, change.upserts()) ? home : null);
    }

    /** Whether any of {@code rules} applies a meter (a loop, not a stream: every flow_mod asks). */
    private static boolean anyMetered(List<VirtualRule> rules) {
        for (VirtualRule r : rules) {
            if (MeterSites.meterOf(r).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Makes the pipeline home what the rules need (after rules went without a flow_mod deciding it),
     * translating everything again when it changes.
     */
    void rehome() {
        PortMap now = ports.get();
        PortMap target = homed(now);
        if (target.equals(now)) {
            return;
        }
        try {
            planner.apply(planner.translateAll(target), false, PlanService::logError);
        } catch (TranslationConflictException e) {
            LOG.error("cannot move the pipeline home to {} (the rules keep their translation): {}",
                    target.pipelineHome().orElse("none"), e.getMessage());
            return;
        }
        setPorts.accept(target);
        LOG.info("pipeline home {}", target.pipelineHome().orElse("none"));
    }

    private MeterSites sitesFor(PortMap ports) {
        if (!sites.isFor(ports)) {
            List<VirtualRule> metered = new ArrayList<>();
            meterUsers.values().forEach(ids -> ids.forEach(id -> metered.add(table.byId(id).orElseThrow())));
            sites.recount(ports, metered);
        }
        return sites;
    }

    private void remove(VirtualRule rule, OFFlowRemovedReason reason) {
        if (!table.contains(rule.id())) {
            return;
        }
        CompletableFuture<Map<Long, Counts>> finalCounts = countersOf(notifiable(List.of(rule)));
        try {
            planner.apply(Map.of(Owner.rule(rule.id()), Translation.EMPTY), false, PlanService::logError);
        } catch (TranslationConflictException e) {
            throw new IllegalStateException("removing a rule cannot conflict", e);
        }
        forget(rule.id());
        rehome();
        changed.run();
        notifyRemoved(List.of(rule), reason, finalCounts);
    }

    private void forget(long id) {
        table.byId(id).ifPresent(this::unindex);
        table.remove(id);
        expiry.forget(id);
        planner.forgetCarried(id);
    }

    private static List<VirtualRule> notifiable(List<VirtualRule> rules) {
        return rules.stream().filter(r -> r.hasFlag(OFFlowModFlags.SEND_FLOW_REM)).toList();
    }

    private void notifyRemoved(List<VirtualRule> removed, OFFlowRemovedReason reason,
                               CompletableFuture<Map<Long, Counts>> finalCounts) {
        List<VirtualRule> rules = notifiable(removed);
        if (rules.isEmpty()) {
            return;
        }
        long now = clock.getAsLong();
        finalCounts.thenAccept(counts -> {
            for (VirtualRule r : rules) {
                Age age = Age.since(r.installedNanos(), now);
                notifier.flowRemoved(new RuleRemoved(r, reason, age.seconds(), age.nanos(),
                        counts.getOrDefault(r.id(), Counts.ZERO)));
            }
        });
    }
}
