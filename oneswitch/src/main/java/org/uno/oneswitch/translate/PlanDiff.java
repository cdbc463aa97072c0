package org.uno.oneswitch.translate;

import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PlanChange;

import java.util.ArrayList;
import java.util.List;

/**
 * The physical changes one plan change makes, by kind, so that they can be sent in an order that
 * never leaves a packet without a rule: groups before the entries that use them, new entries
 * before modified ones before deletions, groups deleted last. {@link #inOrder} is that order for
 * ordinary changes; a remap sends the stages separately, with barriers between them.
 *
 * @param groupUpserts groups to add or modify (a group before the groups whose buckets use it)
 * @param flowAdds     entries with new keys
 * @param flowModifies entries whose instructions change
 * @param flowDeletes  entries to delete
 * @param groupDeletes groups to delete (a group after the groups that use it)
 */
public record PlanDiff(List<GroupChange> groupUpserts, List<PhysicalChange> flowAdds,
                       List<PhysicalChange> flowModifies, List<PhysicalChange> flowDeletes,
                       List<GroupChange> groupDeletes) {
    public static final PlanDiff EMPTY = new PlanDiff(List.of(), List.of(), List.of(), List.of(), List.of());

    public PlanDiff {
        groupUpserts = List.copyOf(groupUpserts);
        flowAdds = List.copyOf(flowAdds);
        flowModifies = List.copyOf(flowModifies);
        flowDeletes = List.copyOf(flowDeletes);
        groupDeletes = List.copyOf(groupDeletes);
    }

    public boolean isEmpty() {
        return groupUpserts.isEmpty() && flowAdds.isEmpty() && flowModifies.isEmpty() && flowDeletes.isEmpty()
                && groupDeletes.isEmpty();
    }

    /** How many changes in all. */
    public int size() {
        return groupUpserts.size() + flowAdds.size() + flowModifies.size() + flowDeletes.size() + groupDeletes.size();
    }

    /** Every change, in the order that keeps packets matched (see above); groups are {@link GroupChange}s. */
    public List<PlanChange> inOrder() {
        List<PlanChange> out = new ArrayList<>(size());
        out.addAll(groupUpserts);
        out.addAll(flowAdds);
        out.addAll(flowModifies);
        out.addAll(flowDeletes);
        out.addAll(groupDeletes);
        return out;
    }

    /** This diff without its deletions. */
    public PlanDiff withoutDeletes() {
        return new PlanDiff(groupUpserts, flowAdds, flowModifies, List.of(), List.of());
    }

    /** Only the deletions of this diff. */
    public PlanDiff deletesOnly() {
        return new PlanDiff(List.of(), List.of(), List.of(), flowDeletes, groupDeletes);
    }
}
