package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.List;

import it.unimi.dsi.fastutil.longs.Long2IntLinkedOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongIterator;

import org.uno.oneswitch.plan.PhysicalRule;

/**
 * The owners of one planned entry or group, in the order they came, with the role each gives it.
 * Nearly every entry has one owner (its rule), so that case is one small immutable object; an
 * entry shared by several (a delivery many rules use) keeps its owners as numbers in a linked
 * open-addressing map, so that adding the thousandth owner costs no more than the second and keeps
 * no object per owner.
 */
sealed interface OwnerRoles {
    PhysicalRule.Role[] ROLES = PhysicalRule.Role.values();

    /** The set with {@code owner} holding with {@code role} (this one, changed, or a new one). */
    OwnerRoles with(Owner owner, PhysicalRule.Role role);

    /** The set without {@code owner}; null when no owner is left. */
    OwnerRoles without(Owner owner);

    /**
     * The set with {@code owner} holding with {@code role} and coming first: what undoing the
     * removal of the first owner needs.
     */
    OwnerRoles withFirst(Owner owner, PhysicalRule.Role role);

    /** The role {@code owner} gives, or null when it is not an owner. */
    PhysicalRule.Role roleOf(Owner owner);

    /** The owners, in the order they came. */
    List<Owner> owners();

    /** Whether every owner is a retirement. */
    boolean allRetired();

    /** The first rule that holds with the COUNTING role, or -1 (rule ids are positive). */
    long countingRule();

    /** The owner that came first. */
    Owner firstOwner();

    /** The role the owner that came first gives. */
    PhysicalRule.Role firstRole();

    /** One owner holding with {@code role}: a rule's kept by its id alone, so that no Owner is kept per rule. */
    static OwnerRoles of(Owner owner, PhysicalRule.Role role) {
        return owner.kind() == Owner.Kind.RULE ? new SoleRule(owner.id(), role) : new Sole(owner, role);
    }

    /** The set of one owner. */
    sealed interface One extends OwnerRoles {
        Owner owner();

        PhysicalRule.Role role();

        @Override
        default OwnerRoles with(Owner o, PhysicalRule.Role r) {
            if (o.equals(owner())) {
                return of(o, r);
            }
            return new Shared().with(owner(), role()).with(o, r);
        }

        @Override
        default OwnerRoles without(Owner o) {
            return o.equals(owner()) ? null : this;
        }

        @Override
        default OwnerRoles withFirst(Owner o, PhysicalRule.Role r) {
            return o.equals(owner()) ? of(o, r) : of(o, r).with(owner(), role());
        }

        @Override
        default PhysicalRule.Role roleOf(Owner o) {
            return o.equals(owner()) ? role() : null;
        }

        @Override
        default List<Owner> owners() {
            return List.of(owner());
        }

        @Override
        default boolean allRetired() {
            return owner().kind() == Owner.Kind.RETIRED;
        }

        @Override
        default long countingRule() {
            return owner().kind() == Owner.Kind.RULE && role() == PhysicalRule.Role.COUNTING ? owner().id() : -1;
        }

        @Override
        default Owner firstOwner() {
            return owner();
        }

        @Override
        default PhysicalRule.Role firstRole() {
            return role();
        }
    }

    record Sole(Owner owner, PhysicalRule.Role role) implements One {
    }

    /** A rule as the one owner, by its id. */
    record SoleRule(long rule, PhysicalRule.Role role) implements One {
        @Override
        public Owner owner() {
            return Owner.rule(rule);
        }
    }

    /** Several owners, each as its kind's ordinal in the top bits above its id, with its role's ordinal. */
    final class Shared implements OwnerRoles {
        private static final int ID_BITS = 60;
        private static final long ID_MASK = (1L << ID_BITS) - 1;
        private static final Owner.Kind[] KINDS = Owner.Kind.values();

        private final Long2IntLinkedOpenHashMap roles = new Long2IntLinkedOpenHashMap();

        Shared() {
            roles.defaultReturnValue(-1);
        }

        private static long code(Owner o) {
            if ((o.id() & ~ID_MASK) != 0) {
                throw new IllegalArgumentException("owner id out of range: " + o);
            }
            return (long) o.kind().ordinal() << ID_BITS | o.id();
        }

        private static Owner owner(long code) {
            return new Owner(KINDS[(int) (code >>> ID_BITS)], code & ID_MASK);
        }

        @Override
        public OwnerRoles with(Owner o, PhysicalRule.Role r) {
            roles.put(code(o), r.ordinal());
            return this;
        }

        @Override
        public OwnerRoles without(Owner o) {
            roles.remove(code(o));
            return roles.isEmpty() ? null : this;
        }

        @Override
        public OwnerRoles withFirst(Owner o, PhysicalRule.Role r) {
            roles.putAndMoveToFirst(code(o), r.ordinal());
            return this;
        }

        @Override
        public PhysicalRule.Role roleOf(Owner o) {
            int r = roles.get(code(o));
            return r < 0 ? null : ROLES[r];
        }

        @Override
        public List<Owner> owners() {
            List<Owner> out = new ArrayList<>(roles.size());
            for (LongIterator it = roles.keySet().iterator(); it.hasNext(); ) {
                out.add(owner(it.nextLong()));
            }
            return out;
        }

        @Override
        public boolean allRetired() {
            for (LongIterator it = roles.keySet().iterator(); it.hasNext(); ) {
                if (KINDS[(int) (it.nextLong() >>> ID_BITS)] != Owner.Kind.RETIRED) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public long countingRule() {
            for (var it = roles.long2IntEntrySet().fastIterator(); it.hasNext(); ) {
                var e = it.next();
                if (KINDS[(int) (e.getLongKey() >>> ID_BITS)] == Owner.Kind.RULE
                        && ROLES[e.getIntValue()] == PhysicalRule.Role.COUNTING) {
                    return e.getLongKey() & ID_MASK;
                }
            }
            return -1;
        }

        @Override
        public Owner firstOwner() {
            return owner(roles.firstLongKey());
        }

        @Override
        public PhysicalRule.Role firstRole() {
            return ROLES[roles.get(roles.firstLongKey())];
        }
    }
}
