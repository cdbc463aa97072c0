package org.uno.oneswitch.translate;

import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PlanChange;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * How a remap's changes split into its make-before-break stages (see {@code RemapService}). A
 * change <em>switches traffic</em> when it modifies an entry or group a live translation holds
 * now: packets use it, and the change sends them to the port's new place. Everything else (new
 * keys, and changes to what only a retired translation holds) is <em>added</em> first, and is in
 * effect before any traffic is switched to it. Deletions are not part of either stage (the old
 * translation is retired, not deleted). Pure.
 *
 * @param add    changes sent and settled first: groups, then entries
 * @param change changes that switch traffic over: groups, then entries
 */
public record RemapStages(List<PlanChange> add, List<PlanChange> change) {
    public RemapStages {
        add = List.copyOf(add);
        change = List.copyOf(change);
    }

    /** The stages of {@code live}, where {@code liveFlows} and {@code liveGroups} are what live translations hold now. */
    public static RemapStages of(PlanDiff live, Set<PhysicalKey> liveFlows, Set<PhysicalGroup.GroupKey> liveGroups) {
        List<PlanChange> add = new ArrayList<>();
        List<PlanChange> change = new ArrayList<>();
        for (GroupChange g : live.groupUpserts()) {
            boolean switchesTraffic = g.kind() != PhysicalChange.Kind.ADD && liveGroups.contains(g.group().groupKey());
            (switchesTraffic ? change : add).add(g);
        }
        add.addAll(live.flowAdds());
        for (PhysicalChange c : live.flowModifies()) {
            (liveFlows.contains(c.key()) ? change : add).add(c);
        }
        return new RemapStages(add, change);
    }
}
