package org.uno.oneswitch.translate;

import org.uno.oneswitch.plan.PhysicalRule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** Owners of planned entries: one owner, many (in arrival order), and undo across both forms. */
class HoldersTest {
    private static final PhysicalRule.Role COUNTING = PhysicalRule.Role.COUNTING;
    private static final PhysicalRule.Role DELIVERY = PhysicalRule.Role.DELIVERY;

    private final Map<String, OwnerRoles> kept = new HashMap<>();
    private final Holders<String> holders = new Holders<>(Holders.Store.in(kept));

    /** The first rule holding {@code key} with the COUNTING role, or -1. */
    private long countingRule(String key) {
        return kept.get(key).countingRule();
    }

    @Test
    void anEntryIsHeldWhileAnyOwnerHoldsItAndOwnersKeepTheirOrder() {
        holders.add("k", Owner.rule(1), COUNTING);
        holders.add("k", Owner.rule(2), DELIVERY);
        holders.add("k", Owner.rule(3), DELIVERY);
        holders.add("k", Owner.rule(1), COUNTING);            // again: keeps its place
        assertEquals(List.of(Owner.rule(1), Owner.rule(2), Owner.rule(3)), holders.owners("k"));
        assertEquals(Optional.of(COUNTING), holders.role("k"));
        assertEquals(1L, countingRule("k"));

        assertFalse(holders.remove("k", Owner.rule(1)));
        assertEquals(Optional.of(DELIVERY), holders.role("k"));
        assertEquals(-1L, countingRule("k"));
        assertFalse(holders.remove("k", Owner.rule(3)));
        assertTrue(holders.remove("k", Owner.rule(2)));
        assertFalse(holders.held("k"));
        assertTrue(holders.remove("k", Owner.rule(2)));       // nobody holds it: still true
    }

    @Test
    void aRollbackRestoresOwnersAndRolesWhateverTheFormInBetween() {
        holders.add("one", Owner.rule(1), COUNTING);
        holders.add("two", Owner.rule(1), DELIVERY);
        holders.add("two", Owner.rule(2), DELIVERY);
        holders.begin();
        holders.add("one", Owner.rule(5), DELIVERY);        // one owner -> shared
        holders.remove("two", Owner.rule(1));
        holders.remove("two", Owner.rule(2));                 // shared -> gone
        holders.add("one", Owner.rule(1), DELIVERY);        // role changed
        holders.add("new", Owner.retired(7), DELIVERY);
        holders.rollback();
        assertEquals(List.of(Owner.rule(1)), holders.owners("one"));
        assertEquals(Optional.of(COUNTING), holders.role("one"));
        // the owners come back, the first one first (the others need not keep their order)
        assertEquals(Owner.rule(1), holders.owners("two").get(0));
        assertEquals(Set.of(Owner.rule(1), Owner.rule(2)), Set.copyOf(holders.owners("two")));
        assertFalse(holders.held("new"));
    }

    @Test
    void aRollbackPutsTheFirstOwnerAndItsRoleBackInFront() {
        holders.add("k", Owner.rule(1), COUNTING);
        holders.add("k", Owner.rule(2), DELIVERY);
        holders.add("k", Owner.rule(3), DELIVERY);
        holders.add("sole", Owner.rule(4), COUNTING);
        holders.begin();
        holders.remove("k", Owner.rule(1));
        holders.add("k", Owner.rule(6), DELIVERY);
        holders.remove("k", Owner.rule(2));
        holders.remove("sole", Owner.rule(4));
        holders.add("sole", Owner.rule(5), DELIVERY);
        holders.rollback();
        assertEquals(Owner.rule(1), holders.first("k").orElseThrow());
        assertEquals(Optional.of(COUNTING), holders.role("k"));
        assertEquals(1L, countingRule("k"));
        assertEquals(Set.of(Owner.rule(1), Owner.rule(2), Owner.rule(3)), Set.copyOf(holders.owners("k")));
        assertEquals(List.of(Owner.rule(4)), holders.owners("sole"));
        assertEquals(Optional.of(COUNTING), holders.role("sole"));
    }

    @Test
    void onlyRetirementsCanBeDroppedFromAnEntry() {
        holders.add("k", Owner.retired(1), DELIVERY);
        assertTrue(holders.onlyRetired("k"));
        holders.add("k", Owner.retired(2), DELIVERY);
        holders.add("k", Owner.rule(4), COUNTING);
        assertFalse(holders.onlyRetired("k"));
        holders.dropRetired("k");
        assertEquals(List.of(Owner.rule(4)), holders.owners("k"));
        assertTrue(holders.onlyRetired("absent"));
    }

    @Test
    void ownersOfEveryKindKeepTheirKindIdAndRoleWhenShared() {
        holders.add("k", Owner.retired(3), DELIVERY);
        holders.add("k", Owner.retired(4), DELIVERY);
        assertTrue(holders.onlyRetired("k"));
        holders.add("k", Owner.group(0xffffffffL), DELIVERY);
        holders.add("k", Owner.INFRASTRUCTURE, PhysicalRule.Role.INFRASTRUCTURE);
        holders.add("k", Owner.rule(9), COUNTING);
        assertFalse(holders.onlyRetired("k"));
        assertEquals(List.of(Owner.retired(3), Owner.retired(4), Owner.group(0xffffffffL), Owner.INFRASTRUCTURE,
                Owner.rule(9)), holders.owners("k"));
        assertEquals(9L, countingRule("k"));
        holders.dropRetired("k");
        assertEquals(Owner.group(0xffffffffL), holders.first("k").orElseThrow());
        assertEquals(Optional.of(DELIVERY), holders.role("k"));
    }
}
