package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.projectfloodlight.openflow.types.OFPort;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.PortMapException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.plan.PlanChange;
import org.uno.oneswitch.translate.Owner;
import org.uno.oneswitch.translate.PhysicalPlan;
import org.uno.oneswitch.translate.PlanDiff;
import org.uno.oneswitch.translate.RemapStages;
import org.uno.oneswitch.translate.Translation;

/**
 * Port remapping (UNO paper §3.3.2): moves virtual port U from one physical port to another,
 * possibly on another switch, while traffic flows, without telling the controller (no
 * PORT_STATUS) and without a moment at which a packet of an affected flow has no rule.
 *
 * <p>Every rule and group is retranslated under the new port map and the difference is applied
 * make-before-break:
 * <ol>
 *   <li><b>add</b>: entries and groups with new keys (rules on U's new port, deliveries of U's tag
 *       on its new switch, tag groups), and changes to entries and groups only an earlier remap's
 *       retired translation holds (a delivery of U's tag to the port U had two remaps ago, kept
 *       for its grace period, must not still point there when traffic is switched to the tag).
 *       Nothing live sends packets to them yet, but the switches they
 *       go to are settled (not only a barrier) before the next stage: the datapath may still cache
 *       a drop for the same match, left when an earlier remap's retired entry with that key was
 *       deleted, and the first packets sent on by the next stage would hit it;</li>
 *   <li><b>switch</b>: entries whose actions change (outputs to U now go to its new place) are
 *       modified; an OpenFlow modify replaces an entry's actions atomically, and the entries of the
 *       new translation never overlap those of the old one (they differ in in_port), so the
 *       paper's higher-priority copies are not needed: every packet always matches either the old
 *       or the new actions, and the tables never lack a rule (also for rules at priority 65535,
 *       which could have no higher-priority copy). Then every switch of both stages is settled:
 *       a barrier and a purge of the cached datapath flows (see
 *       {@link PhysicalNetwork#settle}), so no cached datapath flow still sends to U's old place
 *       and none shadows the new entries;</li>
 *   <li><b>drain</b>: a marker from every other switch through the PCIe links toward U's old
 *       switch proves that packets sent there before the switch-over have arrived;</li>
 *   <li><b>retire</b>: entries of the old translation are kept for a grace period (packets the
 *       old port's NF still sends are forwarded as U's; a stale datapath cache still delivers),
 *       then deleted.</li>
 * </ol>
 * The call completes after the drain, so from then on no packet reaches the old port.
 */
public final class RemapService {
    private static final Logger LOG = LoggerFactory.getLogger(RemapService.class);
    private static final long DRAIN_TIMEOUT_MS = 200;

    /** How a remap went. */
    public record Report(PortMapping from, PortMapping to, boolean changed, List<Stage> stages, boolean drained,
                         long micros, long retireMillis) {
    }

    /** One stage: its name, how many changes it sent, how long it took until settled. */
    public record Stage(String name, int changes, long micros) {
    }

    private final PortService ports;
    private final PlanService planner;
    private final PhysicalNetwork net;
    private final Drains drains;
    private final Timers timers;
    private final Gate gate;
    private final LongSupplier clock;
    private final long graceMillis;
    private long generation;

    RemapService(PortService ports, PlanService planner, PhysicalNetwork net, Drains drains, Timers timers, Gate gate,
                 LongSupplier clock, long graceMillis) {
        this.ports = ports;
        this.planner = planner;
        this.net = net;
        this.drains = drains;
        this.timers = timers;
        this.gate = gate;
        this.clock = clock;
        this.graceMillis = graceMillis;
    }

    /**
     * Starts moving {@code virtualPort} to the physical port {@code target} names; the future
     * completes when the move is in effect. Throws, changing nothing, when the request is refused
     * or the rules cannot be translated with the port in its new place.
     */
    public CompletableFuture<Report> remap(OFPort virtualPort, PortRequest target)
            throws PortMapException, TranslationConflictException {
        long start = clock.getAsLong();
        PortMapping from = ports.current().get(virtualPort).orElseThrow(() -> new PortMapException(
                PortMapException.Reason.NOT_FOUND, "virtual port " + virtualPort + " is not mapped"));
        PortMapping to = ports.remapped(virtualPort, target);
        if (to.physical().equals(from.physical())) {
            return CompletableFuture.completedFuture(new Report(from, to, false, List.of(), true, 0, 0));
        }
        PortMap next = ports.homed(ports.current().without(virtualPort).with(to));
        Map<Owner, Translation> translations = planner.translateChanged(ports.current(), next, virtualPort);
        planner.endRetirementsOn(to.physical(), translations);
        InLiveUse inUse = inLiveUse(translations);
        Owner retired = Owner.retired(++generation);
        PlanDiff live = planner.replaceRetiring(translations, retired);
        ports.setQuietly(next);
        RemapStages split = RemapStages.of(live, inUse.flows(), inUse.groups());
        List<PlanChange> add = split.add();
        List<PlanChange> modify = split.change();
        gate.close();
        List<Stage> stages = new ArrayList<>();
        String oldSwitch = from.physical().switchId();
        Set<String> added = new LinkedHashSet<>();
        add.forEach(c -> added.add(c.switchId()));
        Set<String> touched = new LinkedHashSet<>(added);
        modify.forEach(c -> touched.add(c.switchId()));
        CompletableFuture<Report> done = stage("add", add, stages, () -> net.settle(added))
                .thenCompose(v -> stage("switch", modify, stages, () -> net.settle(touched)))
                .thenCompose(v -> {
                    long t0 = clock.getAsLong();
                    return drains.toward(oldSwitch, DRAIN_TIMEOUT_MS).thenApply(ok -> {
                        stages.add(new Stage("drain", 0, (clock.getAsLong() - t0) / 1000));
                        return ok;
                    });
                })
                .thenApply(drained -> new Report(from, to, true, List.copyOf(stages), drained,
                        (clock.getAsLong() - start) / 1000, graceMillis));
        done.whenComplete((r, t) -> {
            gate.open();
            timers.schedule(graceMillis, () -> endRetirement(retired));
            if (t != null) {
                LOG.warn("remap of virtual port {} failed: {}", virtualPort, t.toString());
            } else {
                LOG.info("remapped virtual port {} from {} to {} in {} us ({}{})", virtualPort, from.physical(),
                        to.physical(), r.micros(), r.stages(), r.drained() ? "" : ", drain timed out");
            }
        });
        return done;
    }

    /**
     * Completes with true once what {@code switchId} forwarded over its PCIe links before the call has
     * reached the other switches and been forwarded by them (drain markers, see {@link Drains#from}); false
     * past {@code timeoutMillis}. The NF agent asks it after an old NF's last packets have left its
     * switch, before the new NF's are let go: packets of the two would otherwise race to the same exit.
     */
    public CompletableFuture<Boolean> drainFrom(String switchId, long timeoutMillis) {
        return drains.from(switchId, timeoutMillis);
    }

    /** Of the entries and groups {@code translations} plan, those a live (not retired) translation holds now. */
    private record InLiveUse(Set<PhysicalKey> flows, Set<PhysicalGroup.GroupKey> groups) {
    }

    private InLiveUse inLiveUse(Map<Owner, Translation> translations) {
        PhysicalPlan plan = planner.plan();
        Set<PhysicalKey> flows = new HashSet<>();
        Set<PhysicalGroup.GroupKey> groups = new HashSet<>();
        for (Translation t : translations.values()) {
            t.flows().stream().map(PhysicalRule::physicalKey).filter(plan::heldLive).forEach(flows::add);
            t.groups().stream().map(PhysicalGroup::groupKey).filter(plan::heldLive).forEach(groups::add);
        }
        return new InLiveUse(flows, groups);
    }

    /** Sends one stage's changes (if any) and completes when {@code settled} says they are in effect. */
    private CompletableFuture<Void> stage(String name, List<PlanChange> changes, List<Stage> stages,
                                          Supplier<CompletableFuture<Void>> settled) {
        long t0 = clock.getAsLong();
        planner.send(changes, false, PlanService::logError);
        return settled.get().thenRun(() -> stages.add(new Stage(name, changes.size(), (clock.getAsLong() - t0) / 1000)));
    }

    /** Deletes the entries a remap kept for its grace period. */
    private void endRetirement(Owner retired) {
        if (planner.plan().translationOf(retired).isEmpty()) {
            return;
        }
        gate.whenOpen(() -> {
            try {
                planner.apply(Map.of(retired, Translation.EMPTY), false, PlanService::logError);
            } catch (TranslationConflictException e) {
                throw new IllegalStateException("removing retired entries cannot conflict", e);
            }
        });
    }
}
