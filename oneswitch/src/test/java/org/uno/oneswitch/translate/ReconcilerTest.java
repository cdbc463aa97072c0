package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFGroupType;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;

class ReconcilerTest {
    private static InstalledEntry entry(int port, int out, long cookie) {
        return new InstalledEntry(new PhysicalKey("host", new RuleKey(1, 10, match(inPort(port)))), apply(out(out)),
                U64.of(cookie));
    }

    private static PhysicalGroup group(long id, int out) {
        return new PhysicalGroup("host", id, OFGroupType.ALL, List.of(Bucket.of(List.of(out(out)))), 0);
    }

    @Test
    void addsMissingReplacesDifferentDeletesStraysLeavesEqualAlone() {
        List<InstalledEntry> desired = List.of(entry(1, 2, 1), entry(2, 3, 2), entry(3, 4, 3));
        List<InstalledEntry> actual = List.of(entry(1, 2, 1), entry(2, 9, 2), entry(5, 5, 77));
        Reconciler.Result r = Reconciler.diff(desired, actual, List.of(), List.of());
        assertEquals(List.of(entry(2, 3, 2).key(), entry(3, 4, 3).key()),
                r.changes().flowAdds().stream().map(PhysicalChange::key).toList());
        assertEquals(List.of(entry(5, 5, 77).key()), r.changes().flowDeletes().stream().map(PhysicalChange::key).toList());
        assertEquals(List.of(), r.sameButCookie());
    }

    @Test
    void equalEntriesUnderAnotherCookieAreOfferedForAdoption() {
        Reconciler.Result r = Reconciler.diff(List.of(entry(1, 2, 5)), List.of(entry(1, 2, 9)), List.of(), List.of());
        assertEquals(0, r.changes().size());
        assertEquals(List.of(new Reconciler.Adoption(entry(1, 2, 5), U64.of(9))), r.sameButCookie());
    }

    @Test
    void groupsAreAddedModifiedAndDeletedAfterTheEntries() {
        Reconciler.Result r = Reconciler.diff(List.of(), List.of(entry(5, 5, 77)), List.of(group(1, 2), group(2, 3)),
                List.of(group(2, 4), group(3, 4)));
        assertEquals(List.of(PhysicalChange.Kind.ADD, PhysicalChange.Kind.MODIFY),
                r.changes().groupUpserts().stream().map(GroupChange::kind).toList());
        assertEquals(List.of(3L), r.changes().groupDeletes().stream().map(c -> c.group().groupId()).toList());
        assertEquals(PhysicalChange.Kind.DELETE, ((GroupChange) r.changes().inOrder().get(3)).kind());
    }

    @Test
    void emptyActionListsCompareEqualToNoInstructions() {
        InstalledEntry drop = new InstalledEntry(entry(1, 1, 1).key(), apply(), U64.of(1));
        InstalledEntry reported = new InstalledEntry(entry(1, 1, 1).key(), List.of(), U64.of(1));
        assertEquals(0, Reconciler.diff(List.of(drop), List.of(reported), List.of(), List.of()).changes().size());
    }
}
