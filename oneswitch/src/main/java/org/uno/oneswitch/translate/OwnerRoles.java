package org.uno.oneswitch.translate;

import org.uno.oneswitch.plan.PhysicalRule;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The owners of one planned entry or group, in the order they came, with the role each gives it.
 * Nearly every entry has one owner (its rule), so that case is one small immutable object; an
 * entry shared by several (a delivery many rules use) keeps a map, so that adding the thousandth
 * owner costs no more than the second.
 */
sealed interface OwnerRoles {
    /** The set with {@code owner} holding with {@code role} (this one, changed, or a new one). */
    OwnerRoles with(Owner owner, PhysicalRule.Role role);

    /** The set without {@code owner}; null when no owner is left. */
    OwnerRoles without(Owner owner);

    /**
     * The set with {@code owner} holding with {@code role} and coming first: what undoing the
     * removal of the first owner needs. Copies a shared set's owners, so it is for rollbacks only.
     */
    OwnerRoles withFirst(Owner owner, PhysicalRule.Role role);

    /** The role {@code owner} gives, or null when it is not an owner. */
    PhysicalRule.Role roleOf(Owner owner);

    /** Owner -> role, in the order the owners came (a view: do not keep it across changes). */
    Map<Owner, PhysicalRule.Role> asMap();

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
            Shared s = new Shared();
            s.roles.put(owner(), role());
            s.roles.put(o, r);
            return s;
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
        default Map<Owner, PhysicalRule.Role> asMap() {
            return Map.of(owner(), role());
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

    final class Shared implements OwnerRoles {
        private final LinkedHashMap<Owner, PhysicalRule.Role> roles = new LinkedHashMap<>();

        @Override
        public OwnerRoles with(Owner o, PhysicalRule.Role r) {
            roles.put(o, r);
            return this;
        }

        @Override
        public OwnerRoles without(Owner o) {
            roles.remove(o);
            return roles.isEmpty() ? null : this;
        }

        @Override
        public OwnerRoles withFirst(Owner o, PhysicalRule.Role r) {
            LinkedHashMap<Owner, PhysicalRule.Role> rest = new LinkedHashMap<>(roles);
            rest.remove(o);
            roles.clear();
            roles.put(o, r);
            roles.putAll(rest);
            return this;
        }

        @Override
        public PhysicalRule.Role roleOf(Owner o) {
            return roles.get(o);
        }

        @Override
        public Map<Owner, PhysicalRule.Role> asMap() {
            return roles;
        }

        @Override
        public Owner firstOwner() {
            return roles.keySet().iterator().next();
        }

        @Override
        public PhysicalRule.Role firstRole() {
            return roles.values().iterator().next();
        }
    }
}
