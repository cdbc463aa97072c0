package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.plan.PlanChange;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.store.IdTable;
import org.uno.oneswitch.store.VirtualFlowTable;
import org.uno.oneswitch.translate.Owner;
import org.uno.oneswitch.translate.PhysicalPlan;
import org.uno.oneswitch.translate.PlanDiff;
import org.uno.oneswitch.translate.PortDependencies;
import org.uno.oneswitch.translate.Reconciler;
import org.uno.oneswitch.translate.Translation;
import org.uno.oneswitch.translate.Translator;

/**
 * Changes the physical plan and sends what changed to the switches. Every plan change of
 * OneSwitch (flow_mods, group_mods, port map changes, remaps, retirements) goes through here.
 *
 * <p>Counters survive a rule's entries moving: when a counting entry of a rule that stays is
 * deleted (its port moved or was unmapped), its counters are read just before the delete (same
 * connection, so nothing is lost in between) and carried over to the rule. Counters restored from
 * the state file are held per switch until that switch is reconciled: dropped where the rule's
 * entries are found again (their counters went on), carried where they had to be added again.
 */
public final class PlanService {
    private static final Logger LOG = LoggerFactory.getLogger(PlanService.class);

    private final PhysicalPlan plan;
    private final Translator translator;
    private final VirtualFlowTable rules;
    private final IdTable<VirtualGroup> groups;
    private final PhysicalGroupIds groupIds;
    private final PhysicalNetwork net;
    private final CounterFetcher counters;
    /** Cookies of counting entries of rules that live on, whose counters must be carried when deleted. */
    private final Map<U64, Long> carryOnDelete = new HashMap<>();
    private final Map<Long, Counts> carried = new HashMap<>();
    /** Rule -> switch -> saved counts of its counting entries there, until that switch is reconciled. */
    private final Map<Long, Map<String, Counts>> restored = new HashMap<>();
    /**
     * The rules and groups whose translations output to NORMAL, and {@link #PACKET_OUTS} while packet-outs
     * keep NORMAL's tables: the tables are planned while there is one.
     */
    private Set<Owner> normalUsers = new HashSet<>();
    /** Packet-outs as a user of NORMAL's tables (never an owner in the plan). */
    private static final Owner PACKET_OUTS = new Owner(Owner.Kind.NORMAL, 1);
    /** The port map in force, for NORMAL's tables when a rule or group change makes them needed. */
    private final Supplier<PortMap> ports;

    public PlanService(PhysicalPlan plan, Translator translator, VirtualFlowTable rules, IdTable<VirtualGroup> groups,
                       PhysicalNetwork net, Supplier<PortMap> ports) {
        this.ports = ports;
        this.plan = plan;
        this.translator = translator;
        this.rules = rules;
        this.groups = groups;
        this.groupIds = new PhysicalGroupIds(groups);
        this.net = net;
        this.counters = new CounterFetcher(net);
    }

    public PhysicalPlan plan() {
        return plan;
    }

    CounterFetcher counters() {
        return counters;
    }

    /** The ids of the groups' copies on the switches. */
    PhysicalGroupIds groupIds() {
        return groupIds;
    }

    public Translation translate(VirtualRule rule, PortMap ports) throws OpenFlowException {
        return translator.translate(groupIds.rename(rule), ports, plan.tags());
    }

    public Translation translate(VirtualGroup group, PortMap ports) throws TranslationConflictException {
        return translator.translate(groupIds.rename(group), ports, plan.tags());
    }

    /**
     * The translations that change when the port map goes from {@code before} to {@code after}, a
     * change of virtual port {@code port} only: OneSwitch's own entries, and every rule and group
     * when the set of switches with virtual ports or the pipeline home changes, else only those
     * {@link PortDependencies#touches touching} it.
     */
    public Map<Owner, Translation> translateChanged(PortMap before, PortMap after, OFPort port)
            throws TranslationConflictException {
        if (!PortDependencies.switchesWithPorts(before).equals(PortDependencies.switchesWithPorts(after))
                || !before.pipelineHome().equals(after.pipelineHome())) {
            return translateAll(after);
        }
        Map<Owner, Translation> out = new LinkedHashMap<>();
        out.put(Owner.INFRASTRUCTURE, translator.infrastructure(after, plan.tags()));
        for (VirtualGroup g : groups.all()) {
            if (PortDependencies.touches(g, port)) {
                out.put(Owner.group(g.id()), translate(g, after));
            }
        }
        for (VirtualRule r : rules.all()) {
            if (PortDependencies.touches(r, port)) {
                out.put(Owner.rule(r.id()), translateStored(r, after));
            }
        }
        out.put(Owner.NORMAL, normalTables(out, after));
        return out;
    }

    /**
     * Translates again, and sends what changes, the groups with a fast-failover bucket watching a
     * virtual port on {@code switchId}: on the other switches such a bucket follows that port's
     * liveness, which has just changed or become known ({@code Localizer}'s watch).
     */
    public void followLiveness(String switchId, PortMap ports) {
        Map<Owner, Translation> out = new LinkedHashMap<>();
        try {
            for (VirtualGroup g : groups.all()) {
                if (g.buckets().stream().anyMatch(b -> ports.physical(b.watchPort())
                        .filter(p -> p.switchId().equals(switchId)).isPresent())) {
                    out.put(Owner.group(g.id()), translate(g, ports));
                }
            }
            if (!out.isEmpty()) {
                apply(out, false, PlanService::logError);
            }
        } catch (TranslationConflictException e) {
            // The groups' tags and entries are those they already have: only the watched port changes.
            throw new IllegalStateException("a liveness change cannot conflict", e);
        }
    }

    /** The translations of every rule and group, and OneSwitch's own entries, under {@code ports}. */
    public Map<Owner, Translation> translateAll(PortMap ports) throws TranslationConflictException {
        return translateAllWith(ports, Map.of());
    }

    /**
     * The translations of every rule and group, and OneSwitch's own entries, under {@code ports},
     * with {@code overlay} (the rules a flow_mod changes) in place of the stored rules' own.
     */
    public Map<Owner, Translation> translateAllWith(PortMap ports, Map<Owner, Translation> overlay)
            throws TranslationConflictException {
        Map<Owner, Translation> out = new LinkedHashMap<>();
        out.put(Owner.INFRASTRUCTURE, translator.infrastructure(ports, plan.tags()));
        for (VirtualGroup g : groups.all()) {
            out.put(Owner.group(g.id()), translate(g, ports));
        }
        for (VirtualRule r : rules.all()) {
            Owner o = Owner.rule(r.id());
            out.put(o, overlay.containsKey(o) ? overlay.get(o) : translateStored(r, ports));
        }
        out.putAll(overlay);
        out.put(Owner.NORMAL, normalTables(out, ports));
        return out;
    }

    /** NORMAL's tables under {@code ports} when a rule or group outputs to NORMAL once {@code translations} apply. */
    private Translation normalTables(Map<Owner, Translation> translations, PortMap ports)
            throws TranslationConflictException {
        return normalUsersAfter(translations).isEmpty() ? Translation.EMPTY : translator.normal(ports, plan.tags());
    }

    private Set<Owner> normalUsersAfter(Map<Owner, Translation> translations) {
        Set<Owner> users = new HashSet<>(normalUsers);
        translations.forEach((o, t) -> {
            if (o.kind() == Owner.Kind.RULE || o.kind() == Owner.Kind.GROUP) {
                if (Translator.outputsToNormal(t)) {
                    users.add(o);
                } else {
                    users.remove(o);
                }
            }
        });
        return users;
    }

    /**
     * {@code translations} with NORMAL's tables added or taken away when they make the first rule
     * or group output to NORMAL, or the last one stop ({@code after}: the users once they apply;
     * translations of the whole port map say it themselves).
     */
    private Map<Owner, Translation> withNormal(Map<Owner, Translation> translations, Set<Owner> after)
            throws TranslationConflictException {
        if (translations.containsKey(Owner.NORMAL) || after.isEmpty() == normalUsers.isEmpty()) {
            return translations;
        }
        Map<Owner, Translation> out = new LinkedHashMap<>(translations);
        out.put(Owner.NORMAL, after.isEmpty() ? Translation.EMPTY : translator.normal(ports.get(), plan.tags()));
        return out;
    }

    /**
     * Makes packet-outs a user of NORMAL's tables or not ({@code keep}), and sends what that changes:
     * the tables come with the first user and go with the last, whichever kind it is. Returns whether
     * anything was sent.
     */
    boolean keepNormalForPacketOuts(boolean keep) throws TranslationConflictException {
        Set<Owner> after = new HashSet<>(normalUsers);
        if (keep) {
            after.add(PACKET_OUTS);
        } else {
            after.remove(PACKET_OUTS);
        }
        Map<Owner, Translation> all = withNormal(Map.of(), after);
        List<? extends PlanChange> changes = all.isEmpty() ? List.of() : plan.replace(all).inOrder();
        normalUsers = after;
        send(changes, false, PlanService::logError);
        return !changes.isEmpty();
    }

    /** The translation of an installed rule (it was valid when installed, so only a conflict can refuse it). */
    private Translation translateStored(VirtualRule r, PortMap ports) throws TranslationConflictException {
        try {
            return translate(r, ports);
        } catch (TranslationConflictException e) {
            throw e;
        } catch (OpenFlowException e) {
            throw new IllegalStateException("stored rule no longer valid: " + r, e);
        }
    }

    /**
     * Replaces the owners' translations (see {@link PhysicalPlan#replace}) without sending
     * anything; counting entries of rules that live on are marked for carrying their counters.
     */
    public PlanDiff replace(Map<Owner, Translation> translations) throws TranslationConflictException {
        Set<Owner> users = normalUsersAfter(translations);
        Map<Owner, Translation> all = withNormal(translations, users);
        markCarried(all);
        PlanDiff diff = plan.replace(all);
        normalUsers = users;
        return diff;
    }

    /**
     * Like {@link #replace}, but what the change would delete stays under the retirement
     * {@code retired} (see {@link PhysicalPlan#replaceRetiring}).
     */
    public PlanDiff replaceRetiring(Map<Owner, Translation> translations, Owner retired)
            throws TranslationConflictException {
        Set<Owner> users = normalUsersAfter(translations);
        Map<Owner, Translation> all = withNormal(translations, users);
        markCarried(all);
        PlanDiff diff = plan.replaceRetiring(all, retired);
        normalUsers = users;
        return diff;
    }

    private void markCarried(Map<Owner, Translation> translations) {
        for (Map.Entry<Owner, Translation> e : translations.entrySet()) {
            Owner o = e.getKey();
            if (o.kind() == Owner.Kind.RULE && !e.getValue().isEmpty()) {
                for (InstalledEntry c : plan.countingEntries(o.id())) {
                    carryOnDelete.put(c.cookie(), o.id());
                }
            }
        }
        if (carryOnDelete.size() > 4 * plan.size() + 1024) {
            carryOnDelete.keySet().removeIf(c -> !plan.planned(c));
        }
    }

    /** Replaces and sends at once. */
    public void apply(Map<Owner, Translation> translations, boolean resetCounts, PhysicalNetwork.ErrorListener onError)
            throws TranslationConflictException {
        send(replace(translations).inOrder(), resetCounts, onError);
    }

    /** Sends {@code changes} in order; counters of carried entries are read before their deletes. */
    public void send(List<? extends PlanChange> changes, boolean resetCounts, PhysicalNetwork.ErrorListener onError) {
        List<InstalledEntry> carry = new ArrayList<>();
        Map<U64, Long> owners = new HashMap<>();
        for (PlanChange c : changes) {
            if (c instanceof PhysicalChange p && p.kind() == PhysicalChange.Kind.DELETE
                    && p.role() == PhysicalRule.Role.COUNTING) {
                Long rule = carryOnDelete.remove(p.cookie());
                if (rule != null && rules.byId(rule).isPresent()) {
                    carry.add(new InstalledEntry(p.key(), p.instructions(), p.cookie()));
                    owners.put(p.cookie(), rule);
                }
            }
        }
        if (!carry.isEmpty()) {
            counters.fetch(carry).thenAccept(byCookie -> byCookie.forEach((cookie, c) -> {
                Long rule = owners.get(cookie);
                if (rule != null && rules.byId(rule).isPresent()) {
                    carried.merge(rule, c, Counts::plus);
                }
            }));
        }
        for (PlanChange c : changes) {
            net.apply(c, resetCounts, onError);
        }
    }

    /**
     * Makes {@code switchId}'s tables equal to the plan, given the entries and groups it reported;
     * planned entries found with equal instructions keep their counters (their cookie is adopted).
     */
    public void reconcile(String switchId, Collection<InstalledEntry> actual, Collection<PhysicalGroup> actualGroups) {
        Reconciler.Result r = Reconciler.diff(plan.entries(switchId), actual, plan.groups(switchId), actualGroups);
        List<PhysicalChange> readd = new ArrayList<>(r.changes().flowAdds());
        for (Reconciler.Adoption a : r.sameButCookie()) {
            if (!plan.adoptCookie(a.planned().key(), a.found())) {
                readd.add(Reconciler.add(a.planned()));
            }
        }
        settleRestored(switchId, readd);
        PlanDiff d = r.changes();
        PlanDiff changes = new PlanDiff(d.groupUpserts(), readd, List.of(), d.flowDeletes(), d.groupDeletes());
        LOG.info("reconciling {}: {} entries and {} groups planned, {} and {} found, {} changes, {} cookies adopted",
                switchId, plan.entries(switchId).size(), plan.groups(switchId).size(), actual.size(), actualGroups.size(),
                changes.size(), r.sameButCookie().size() - (readd.size() - d.flowAdds().size()));
        send(changes.inOrder(), false, PlanService::logError);
    }

    /**
     * Deletes now the entries retired remaps keep whose match is on the physical port {@code port}
     * (it is about to carry another mapping's packets, which they must not see), except those
     * {@code next} needs too (they become its entries, unchanged or modified).
     */
    public void endRetirementsOn(PhysicalPort port, Map<Owner, Translation> next) throws TranslationConflictException {
        Set<PhysicalKey> needed = new HashSet<>();
        next.values().forEach(t -> t.flows().forEach(r -> needed.add(r.physicalKey())));
        Map<Owner, Translation> reduced = new LinkedHashMap<>();
        for (Owner o : plan.owners()) {
            if (o.kind() != Owner.Kind.RETIRED) {
                continue;
            }
            Translation t = plan.translationOf(o);
            List<PhysicalRule> kept = t.flows().stream().filter(r -> !r.switchId().equals(port.switchId())
                    || r.key().match().inPort().filter(port.port()::equals).isEmpty()
                    || needed.contains(r.physicalKey())).toList();
            if (kept.size() != t.flows().size()) {
                reduced.put(o, new Translation(kept, t.groups()));
            }
        }
        if (!reduced.isEmpty()) {
            apply(reduced, false, PlanService::logError);
        }
    }

    /**
     * The restored counts of the rules with entries on {@code switchId}, now that it was reconciled:
     * a rule all of whose counting entries there had to be added again ({@code readded}) carries
     * them; otherwise its entries' own counters include them.
     */
    private void settleRestored(String switchId, List<PhysicalChange> readded) {
        if (restored.isEmpty()) {
            return;
        }
        Map<Long, Integer> added = new HashMap<>();
        for (PhysicalChange c : readded) {
            plan.countingOwner(c.cookie()).ifPresent(rule -> added.merge(rule, 1, Integer::sum));
        }
        restored.entrySet().removeIf(e -> {
            Counts saved = e.getValue().remove(switchId);
            long ruleId = e.getKey();
            if (saved != null && added.getOrDefault(ruleId, 0) > 0 && added.get(ruleId) == plan.countingEntries(ruleId)
                    .stream().filter(x -> x.key().switchId().equals(switchId)).count()) {
                carried.merge(ruleId, saved, Counts::plus);
            }
            return e.getValue().isEmpty();
        });
    }

    /** Counters OneSwitch holds for rule {@code ruleId}: carried from entries it no longer has, and restored ones. */
    Counts carried(long ruleId) {
        Counts c = carried.getOrDefault(ruleId, Counts.ZERO);
        for (Counts r : restored.getOrDefault(ruleId, Map.of()).values()) {
            c = c.plus(r);
        }
        return c;
    }

    /** The counters of {@link #carried}, with the restored ones still by switch (what a snapshot saves). */
    RuleCounters held(long ruleId) {
        return new RuleCounters(carried.getOrDefault(ruleId, Counts.ZERO), restored.getOrDefault(ruleId, Map.of()));
    }

    /** Puts back the counters a rule had when the state was saved (at start, before any switch connects). */
    void restoreCounters(long ruleId, RuleCounters saved) {
        if (!saved.carried().equals(Counts.ZERO)) {
            carried.put(ruleId, saved.carried());
        }
        if (!saved.bySwitch().isEmpty()) {
            restored.put(ruleId, new HashMap<>(saved.bySwitch()));
        }
    }

    /** Forgets the carried and restored counters of {@code ruleId} (removed, or its counters reset). */
    void forgetCarried(long ruleId) {
        carried.remove(ruleId);
        restored.remove(ruleId);
    }

    /** Logs an error a switch returned for a change OneSwitch made on its own. */
    public static void logError(String switchId, OpenFlowException error) {
        LOG.warn("switch {} refused a change OneSwitch made on its own: {}", switchId, error.describe());
    }
}
