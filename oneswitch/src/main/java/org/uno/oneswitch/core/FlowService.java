package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.OFFlowRemovedReason;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.MatchCodec;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.store.VirtualFlowTable;
import org.uno.oneswitch.translate.InstalledEntry;
import org.uno.oneswitch.translate.PhysicalChange;
import org.uno.oneswitch.translate.PhysicalPlan;
import org.uno.oneswitch.translate.PhysicalRule;
import org.uno.oneswitch.translate.Translator;

/**
 * Applies flow_mods to the virtual tables and keeps the physical switches following them:
 * decide ({@link FlowModPlanner}), translate every affected rule, update the {@link PhysicalPlan}
 * (all or nothing), commit the virtual change, then send the physical changes. Also retranslates
 * everything when the port map changes, expires rules, and reports removed rules to controllers.
 *
 * <p>Invariant: the plan is always the translation of exactly the rules in the virtual table
 * under the current port map; a refused request changes neither.
 */
public final class FlowService {
    private static final Logger LOG = LoggerFactory.getLogger(FlowService.class);

    private final VirtualFlowTable table;
    private final PhysicalPlan plan;
    private final Translator translator;
    private final Supplier<PortMap> ports;
    private final PhysicalNetwork net;
    private final ControllerNotifier notifier;
    private final CounterFetcher counters;
    private final LongSupplier clock;
    private final Expiry expiry = new Expiry();
    private boolean idlePollPending;

    public FlowService(VirtualFlowTable table, PhysicalPlan plan, Translator translator, Supplier<PortMap> ports,
                       PhysicalNetwork net, ControllerNotifier notifier, LongSupplier clock) {
        this.table = table;
        this.plan = plan;
        this.translator = translator;
        this.ports = ports;
        this.net = net;
        this.notifier = notifier;
        this.counters = new CounterFetcher(net);
        this.clock = clock;
    }

    /** Applies {@code req}; physical errors caused by it go to {@code onError}. */
    public void flowMod(FlowModRequest req, PhysicalNetwork.ErrorListener onError) throws OpenFlowException {
        TableChange change = FlowModPlanner.plan(table, req, clock.getAsLong(), table::newId);
        if (change.isEmpty()) {
            return;
        }
        Map<Long, List<PhysicalRule>> translations = new LinkedHashMap<>();
        for (VirtualRule r : change.upserts()) {
            translations.put(r.id(), translator.translate(r, ports.get()));
        }
        for (VirtualRule r : change.removals()) {
            translations.put(r.id(), List.of());
        }
        CompletableFuture<Map<Long, Counts>> finalCounts = change.removals().isEmpty() ? null
                : countersOf(notifiable(change.removals()));
        List<PhysicalChange> changes = plan.replace(translations);
        change.upserts().forEach(table::put);
        change.removals().forEach(r -> forget(r.id()));
        send(changes, req.flags().contains(OFFlowModFlags.RESET_COUNTS), onError);
        if (finalCounts != null) {
            notifyRemoved(change.removals(), OFFlowRemovedReason.DELETE, finalCounts);
        }
    }

    /**
     * Retranslates every rule under {@code next} and sends the difference; throws, changing
     * nothing, when some rule cannot be translated under it.
     */
    public void retranslateAll(PortMap next) throws TranslationConflictException {
        Map<Long, List<PhysicalRule>> translations = new LinkedHashMap<>();
        for (VirtualRule r : table.all()) {
            try {
                translations.put(r.id(), translator.translate(r, next));
            } catch (TranslationConflictException e) {
                throw e;
            } catch (OpenFlowException e) {
                throw new IllegalStateException("stored rule no longer valid: " + r, e);
            }
        }
        send(plan.replace(translations), false, FlowService::logError);
    }

    /** Makes {@code switchId}'s table equal to the plan, given the entries it reported. */
    public void reconcile(String switchId, Collection<InstalledEntry> actual) {
        List<PhysicalChange> changes = org.uno.oneswitch.translate.Reconciler.diff(plan.entries(switchId), actual);
        LOG.info("reconciling {}: {} entries planned, {} found, {} changes", switchId, plan.entries(switchId).size(),
                actual.size(), changes.size());
        send(changes, false, FlowService::logError);
    }

    /** Expires rules whose hard timeout passed, and (one poll at a time) idle ones. */
    public void tick() {
        long now = clock.getAsLong();
        List<Expiry.Expired> hard = Expiry.hard(table.all(), now);
        hard.forEach(e -> remove(e.rule(), e.reason()));
        List<VirtualRule> idleRules = table.all().stream().filter(r -> r.idleTimeout() > 0).toList();
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
        List<InstalledEntry> entries = new ArrayList<>();
        Map<Long, List<U64>> cookies = new HashMap<>();
        for (VirtualRule r : rules) {
            for (InstalledEntry e : plan.countingEntries(r.id())) {
                entries.add(e);
                cookies.computeIfAbsent(r.id(), id -> new ArrayList<>()).add(e.cookie());
            }
        }
        return counters.fetch(entries).thenApply(byCookie -> {
            Map<Long, Counts> out = new HashMap<>();
            for (VirtualRule r : rules) {
                Counts c = Counts.ZERO;
                for (U64 cookie : cookies.getOrDefault(r.id(), List.of())) {
                    c = c.plus(byCookie.getOrDefault(cookie, Counts.ZERO));
                }
                out.put(r.id(), c);
            }
            return out;
        });
    }

    /** The virtual rule whose counting entry has physical cookie {@code cookie}. */
    public Optional<VirtualRule> ruleOfCookie(U64 cookie) {
        return plan.countingOwner(cookie).flatMap(table::byId);
    }

    /** The rules {@code filter} selects. */
    public List<VirtualRule> select(FlowFilter filter) {
        return table.select(filter);
    }

    private void remove(VirtualRule rule, OFFlowRemovedReason reason) {
        if (table.byId(rule.id()).isEmpty()) {
            return;
        }
        CompletableFuture<Map<Long, Counts>> finalCounts = countersOf(notifiable(List.of(rule)));
        try {
            send(plan.replace(Map.of(rule.id(), List.of())), false, FlowService::logError);
        } catch (TranslationConflictException e) {
            throw new IllegalStateException("removing a rule cannot conflict", e);
        }
        forget(rule.id());
        notifyRemoved(List.of(rule), reason, finalCounts);
    }

    private void forget(long id) {
        table.remove(id);
        expiry.forget(id);
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
            OFFactory f = net.factory();
            for (VirtualRule r : rules) {
                Counts c = counts.getOrDefault(r.id(), Counts.ZERO);
                Age age = Age.since(r.installedNanos(), now);
                notifier.flowRemoved(f.buildFlowRemoved().setCookie(r.cookie()).setPriority(r.priority())
                        .setReason(reason).setTableId(TableId.of(r.table())).setDurationSec(age.seconds())
                        .setDurationNsec(age.nanos()).setIdleTimeout(r.idleTimeout())
                        .setHardTimeout(r.hardTimeout()).setPacketCount(U64.of(c.packets()))
                        .setByteCount(U64.of(c.bytes())).setMatch(MatchCodec.encode(r.match(), f)).build());
            }
        });
    }

    private void send(List<PhysicalChange> changes, boolean resetCounts, PhysicalNetwork.ErrorListener onError) {
        OFFactory f = net.factory();
        for (PhysicalChange c : changes) {
            net.send(c.key().switchId(), PhysicalMessages.flowMod(c, resetCounts, f), onError);
        }
    }

    private static void logError(String switchId, org.projectfloodlight.openflow.protocol.OFErrorMsg error) {
        LOG.warn("switch {} refused a change OneSwitch made on its own: {}", switchId, error);
    }
}
