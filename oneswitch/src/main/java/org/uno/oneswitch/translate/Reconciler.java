package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PhysicalRule;

/**
 * What makes a physical switch's flow and group tables equal to the plan: entries missing or with
 * other instructions are added (an OpenFlow ADD replaces an entry with the same key), groups
 * missing are added and different ones modified, and entries and groups the plan does not have
 * are deleted (entries first: deleting a group deletes the entries that use it). Equal entries are
 * left alone, so their counters and the packets using them are not disturbed; an equal entry with
 * another cookie (the plan was rebuilt, e.g. after a restart) is offered for cookie adoption
 * instead of being replaced. Pure.
 */
public final class Reconciler {
    /**
     * The outcome: the changes to send, and entries that differ only by cookie, each to be adopted
     * (or, if the plan cannot take that cookie, replaced).
     */
    public record Result(PlanDiff changes, List<Adoption> sameButCookie) {
        public Result {
            sameButCookie = List.copyOf(sameButCookie);
        }
    }

    /** A planned entry found on the switch with equal instructions under cookie {@code found}. */
    public record Adoption(InstalledEntry planned, U64 found) {
    }

    private Reconciler() {
    }

    /** Turns {@code actual} (entries, groups) into {@code desired}. */
    public static Result diff(Collection<InstalledEntry> desired, Collection<InstalledEntry> actual,
                              Collection<PhysicalGroup> desiredGroups, Collection<PhysicalGroup> actualGroups) {
        Map<PhysicalKey, InstalledEntry> have = new HashMap<>();
        actual.forEach(e -> have.put(e.key(), e));
        List<PhysicalChange> adds = new ArrayList<>();
        List<Adoption> cookieOnly = new ArrayList<>();
        for (InstalledEntry want : desired) {
            InstalledEntry got = have.remove(want.key());
            boolean sameActions = got != null && normalize(got.instructions()).equals(normalize(want.instructions()));
            if (sameActions && !got.cookie().equals(want.cookie())) {
                cookieOnly.add(new Adoption(want, got.cookie()));
            } else if (!sameActions) {
                adds.add(add(want));
            }
        }
        List<PhysicalChange> deletes = new ArrayList<>();
        for (InstalledEntry stray : have.values()) {
            deletes.add(new PhysicalChange(PhysicalChange.Kind.DELETE, stray.key(), stray.instructions(), stray.cookie(),
                    PhysicalRule.Role.INFRASTRUCTURE, 0));
        }
        Map<PhysicalGroup.GroupKey, PhysicalGroup> haveGroups = new HashMap<>();
        actualGroups.forEach(g -> haveGroups.put(g.groupKey(), g));
        List<GroupChange> upserts = new ArrayList<>();
        for (PhysicalGroup want : desiredGroups) {
            PhysicalGroup got = haveGroups.remove(want.groupKey());
            if (got == null) {
                upserts.add(new GroupChange(PhysicalChange.Kind.ADD, want));
            } else if (!sameGroup(got, want)) {
                upserts.add(new GroupChange(PhysicalChange.Kind.MODIFY, want));
            }
        }
        List<GroupChange> groupDeletes = new ArrayList<>();
        haveGroups.values().forEach(g -> groupDeletes.add(new GroupChange(PhysicalChange.Kind.DELETE, g)));
        upserts.sort((a, b) -> Boolean.compare(Layout.tagOfGroup(b.group().groupId()) != 0,
                Layout.tagOfGroup(a.group().groupId()) != 0));
        return new Result(new PlanDiff(upserts, adds, List.of(), deletes, groupDeletes), cookieOnly);
    }

    /** The ADD that puts {@code want} on its switch. */
    public static PhysicalChange add(InstalledEntry want) {
        return new PhysicalChange(PhysicalChange.Kind.ADD, want.key(), want.instructions(), want.cookie(),
                PhysicalRule.Role.INFRASTRUCTURE, 0);
    }

    /** Groups compare by type and buckets (the tag is OneSwitch's bookkeeping, not on the switch). */
    private static boolean sameGroup(PhysicalGroup got, PhysicalGroup want) {
        return got.type() == want.type() && got.buckets().equals(want.buckets());
    }

    /**
     * Instructions as a switch reports them back: empty action lists are dropped (Open vSwitch does
     * not report them), so a planned entry and the same entry read back compare equal.
     */
    static List<Instruction> normalize(List<Instruction> instructions) {
        List<Instruction> out = new ArrayList<>(instructions.size());
        for (Instruction i : instructions) {
            boolean empty = i instanceof Instruction.ApplyActions a && a.actions().isEmpty()
                    || i instanceof Instruction.WriteActions w && w.actions().isEmpty();
            if (!empty) {
                out.add(i);
            }
        }
        return out;
    }
}
