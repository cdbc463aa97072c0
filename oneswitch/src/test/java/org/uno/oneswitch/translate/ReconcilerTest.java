package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.RuleKey;

class ReconcilerTest {
    private static InstalledEntry entry(int port, int out, long cookie) {
        return new InstalledEntry(new PhysicalKey("host", new RuleKey(0, 10, match(inPort(port)))), apply(out(out)),
                U64.of(cookie));
    }

    @Test
    void addsMissingReplacesDifferentDeletesStraysLeavesEqualAlone() {
        List<InstalledEntry> desired = List.of(entry(1, 2, 1), entry(2, 3, 2), entry(3, 4, 3));
        List<InstalledEntry> actual = List.of(entry(1, 2, 1), entry(2, 9, 2), entry(5, 5, 77));
        List<PhysicalChange> changes = Reconciler.diff(desired, actual);
        assertEquals(List.of(PhysicalChange.Kind.ADD, PhysicalChange.Kind.ADD, PhysicalChange.Kind.DELETE),
                changes.stream().map(PhysicalChange::kind).toList());
        assertEquals(List.of(entry(2, 3, 2).key(), entry(3, 4, 3).key(), entry(5, 5, 77).key()),
                changes.stream().map(PhysicalChange::key).toList());
    }

    @Test
    void emptyActionListsCompareEqualToNoInstructions() {
        InstalledEntry drop = new InstalledEntry(entry(1, 1, 1).key(), apply(), U64.of(1));
        InstalledEntry reported = new InstalledEntry(entry(1, 1, 1).key(), List.of(), U64.of(1));
        assertEquals(List.of(), Reconciler.diff(List.of(drop), List.of(reported)));
    }
}
