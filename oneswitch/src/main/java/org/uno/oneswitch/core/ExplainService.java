package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.translate.Owner;
import org.uno.oneswitch.translate.PhysicalPlan;
import org.uno.oneswitch.translate.Translation;

/**
 * The explain view: for a virtual rule (or group), the physical entries and groups it became, on
 * which switch, with their counters; for a physical entry, what it came from. Reads the plan and
 * the switches' counters; changes nothing.
 */
public final class ExplainService {
    /** One physical entry as explained: where, what, why, how many packets. */
    public record Entry(InstalledEntry entry, PhysicalRule.Role role, List<Owner> owners, Counts counts) {
    }

    /** A virtual rule, its counters, and what it became. */
    public record RuleView(VirtualRule rule, Counts counts, List<Entry> entries, List<PhysicalGroup> groups) {
    }

    /** A virtual group and the physical groups (and entries) it became. */
    public record GroupView(VirtualGroup group, List<Entry> entries, List<PhysicalGroup> groups) {
    }

    private final PhysicalPlan plan;
    private final FlowService flows;
    private final GroupService groups;
    private final CounterFetcher counters;

    ExplainService(PlanService planner, FlowService flows, GroupService groups) {
        this.plan = planner.plan();
        this.flows = flows;
        this.groups = groups;
        this.counters = planner.counters();
    }

    /** {@code rules} with their physical entries and counters. */
    public CompletableFuture<List<RuleView>> rules(Collection<VirtualRule> rules) {
        List<InstalledEntry> all = new ArrayList<>();
        for (VirtualRule r : rules) {
            all.addAll(installed(plan.translationOf(Owner.rule(r.id()))));
        }
        CompletableFuture<Map<Long, Counts>> virtual = flows.countersOf(rules);
        return counters.fetch(all).thenCombine(virtual, (byCookie, byRule) -> {
            List<RuleView> out = new ArrayList<>(rules.size());
            for (VirtualRule r : rules) {
                Translation t = plan.translationOf(Owner.rule(r.id()));
                out.add(new RuleView(r, byRule.getOrDefault(r.id(), Counts.ZERO), entries(t, byCookie), t.groups()));
            }
            return out;
        });
    }

    /** Every virtual group with what it became (counters are per group: GROUP stats). */
    public List<GroupView> groups() {
        List<GroupView> out = new ArrayList<>();
        for (VirtualGroup g : groups.all()) {
            Translation t = plan.translationOf(Owner.group(g.id()));
            out.add(new GroupView(g, entries(t, Map.of()), t.groups()));
        }
        return out;
    }

    /** The physical entry with {@code cookie}, what it is for and whom, with its counters. */
    public CompletableFuture<Optional<Entry>> entry(U64 cookie) {
        Optional<InstalledEntry> e = plan.entryOf(cookie);
        if (e.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return counters.fetch(List.of(e.get())).thenApply(byCookie -> Optional.of(new Entry(e.get(),
                role(e.get().key()), plan.ownersOf(cookie), byCookie.getOrDefault(cookie, Counts.ZERO))));
    }

    private List<Entry> entries(Translation t, Map<U64, Counts> byCookie) {
        List<Entry> out = new ArrayList<>();
        for (InstalledEntry e : installed(t)) {
            out.add(new Entry(e, role(e.key()), plan.ownersOf(e.cookie()), byCookie.getOrDefault(e.cookie(), Counts.ZERO)));
        }
        return out;
    }

    private List<InstalledEntry> installed(Translation t) {
        List<InstalledEntry> out = new ArrayList<>();
        for (PhysicalRule r : t.flows()) {
            plan.cookieOf(r.physicalKey()).ifPresent(c -> out.add(new InstalledEntry(r.physicalKey(), r.instructions(), c)));
        }
        return out;
    }

    private PhysicalRule.Role role(PhysicalKey key) {
        return plan.roleOf(key).orElse(PhysicalRule.Role.INFRASTRUCTURE);
    }
}
