package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PhysicalRule;

/** Which of a remap's changes are added first and which switch traffic over. */
class RemapStagesTest {
    private static PhysicalChange change(PhysicalChange.Kind kind, String sw, int port) {
        return new PhysicalChange(kind, new PhysicalKey(sw, new RuleKey(1, 10, match(inPort(port)))), apply(out(2)),
                U64.of(port), PhysicalRule.Role.COUNTING, 0);
    }

    private static GroupChange group(PhysicalChange.Kind kind, long id) {
        return new GroupChange(kind, new PhysicalGroup("host", id, OFGroupType.ALL,
                List.of(Bucket.of(List.of(out(3)))), 0));
    }

    @Test
    void modifiesOfWhatLiveTranslationsHoldSwitchTrafficEverythingElseIsAddedFirst() {
        PhysicalChange newKey = change(PhysicalChange.Kind.ADD, "snic0", 5);
        PhysicalChange liveModify = change(PhysicalChange.Kind.MODIFY, "host", 2);
        PhysicalChange retiredModify = change(PhysicalChange.Kind.MODIFY, "snic0", 1);
        GroupChange newGroup = group(PhysicalChange.Kind.ADD, 7);
        GroupChange liveGroup = group(PhysicalChange.Kind.MODIFY, 8);
        GroupChange retiredGroup = group(PhysicalChange.Kind.MODIFY, 9);
        PlanDiff live = new PlanDiff(List.of(newGroup, liveGroup, retiredGroup), List.of(newKey),
                List.of(liveModify, retiredModify), List.of(change(PhysicalChange.Kind.DELETE, "host", 5)), List.of());

        RemapStages stages = RemapStages.of(live, Set.of(liveModify.key()),
                Set.of(liveGroup.group().groupKey(), newGroup.group().groupKey()));

        assertEquals(List.of(newGroup, retiredGroup, newKey, retiredModify), stages.add(),
                "groups before entries; a group added is never switching traffic, even if its key is live");
        assertEquals(List.of(liveGroup, liveModify), stages.change());
    }

    @Test
    void nothingLiveMeansNothingToSwitch() {
        PlanDiff live = new PlanDiff(List.of(), List.of(change(PhysicalChange.Kind.ADD, "host", 3)),
                List.of(change(PhysicalChange.Kind.MODIFY, "host", 4)), List.of(), List.of());
        RemapStages stages = RemapStages.of(live, Set.of(), Set.of());
        assertEquals(2, stages.add().size());
        assertEquals(List.of(), stages.change());
    }
}
