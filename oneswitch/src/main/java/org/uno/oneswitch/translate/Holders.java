package org.uno.oneswitch.translate;

import org.uno.oneswitch.plan.PhysicalRule;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Who needs each planned entry or group (its owners, with the role each gives it), changed in
 * place (an entry shared by many rules costs nothing to add to) and undone on a refused change.
 *
 * <p>Invariant: a key is present exactly while at least one owner holds it; while recording, every
 * change can be undone in reverse order.
 */
final class Holders<K> {
    /** Where the owners of each key are kept. */
    interface Store<K> {
        /** The owners of {@code key}, or null. */
        OwnerRoles get(K key);

        void put(K key, OwnerRoles owners);

        void remove(K key);

        /** The store that is {@code map}. */
        static <K> Store<K> in(Map<K, OwnerRoles> map) {
            return new Store<>() {
                @Override
                public OwnerRoles get(K key) {
                    return map.get(key);
                }

                @Override
                public void put(K key, OwnerRoles owners) {
                    map.put(key, owners);
                }

                @Override
                public void remove(K key) {
                    map.remove(key);
                }
            };
        }
    }

    private final Store<K> byKey;
    private final Deque<Runnable> undo = new ArrayDeque<>();
    private boolean recording;

    /** Holders kept in a map of their own. */
    Holders() {
        this(Store.in(new HashMap<>()));
    }

    /** Holders kept in {@code store}. */
    Holders(Store<K> store) {
        this.byKey = store;
    }

    /** Starts recording changes so that {@link #rollback} can undo them. */
    void begin() {
        undo.clear();
        recording = true;
    }

    /** Keeps the recorded changes. */
    void commit() {
        undo.clear();
        recording = false;
    }

    /** Undoes every change since {@link #begin}. */
    void rollback() {
        recording = false;
        while (!undo.isEmpty()) {
            undo.pop().run();
        }
    }

    /** {@code owner} holds {@code key} with {@code role}. */
    void add(K key, Owner owner, PhysicalRule.Role role) {
        OwnerRoles owners = byKey.get(key);
        PhysicalRule.Role prev = owners == null ? null : owners.roleOf(owner);
        put(key, owners, owner, role);
        if (recording) {
            undo.push(prev != null ? () -> putRaw(key, owner, prev) : () -> removeRaw(key, owner));
        }
    }

    /** {@code owner} no longer holds {@code key}; true when nobody holds it any more. */
    boolean remove(K key, Owner owner) {
        OwnerRoles owners = byKey.get(key);
        PhysicalRule.Role prev = owners == null ? null : owners.roleOf(owner);
        if (prev == null) {
            return owners == null;
        }
        if (recording) {
            // the first owner names the entry's role: put it back in front, the others at the end
            undo.push(owners.firstOwner().equals(owner)
                    ? () -> putFirst(key, owner, prev) : () -> putRaw(key, owner, prev));
        }
        return drop(key, owners, owner);
    }

    /** Removes every retirement holding {@code key}. */
    void dropRetired(K key) {
        for (Owner o : owners(key)) {
            if (o.kind() == Owner.Kind.RETIRED) {
                remove(key, o);
            }
        }
    }

    boolean held(K key) {
        return byKey.get(key) != null;
    }

    /** True when more than one owner holds {@code key} (or did since it was last held by one). */
    boolean shared(K key) {
        return byKey.get(key) instanceof OwnerRoles.Shared;
    }

    /** True when only retirements hold {@code key}. */
    boolean onlyRetired(K key) {
        OwnerRoles owners = byKey.get(key);
        return owners == null || owners.allRetired();
    }

    List<Owner> owners(K key) {
        OwnerRoles owners = byKey.get(key);
        return owners == null ? List.of() : owners.owners();
    }

    Optional<Owner> first(K key) {
        OwnerRoles owners = byKey.get(key);
        return owners == null ? Optional.empty() : Optional.of(owners.firstOwner());
    }

    /** The role the first owner gives {@code key}. */
    Optional<PhysicalRule.Role> role(K key) {
        OwnerRoles owners = byKey.get(key);
        return owners == null ? Optional.empty() : Optional.of(owners.firstRole());
    }

    private void putRaw(K key, Owner owner, PhysicalRule.Role role) {
        put(key, byKey.get(key), owner, role);
    }

    private void putFirst(K key, Owner owner, PhysicalRule.Role role) {
        OwnerRoles owners = byKey.get(key);
        byKey.put(key, owners == null ? OwnerRoles.of(owner, role) : owners.withFirst(owner, role));
    }

    /** Removes {@code owner}'s hold on {@code key}; true when nobody holds it any more. */
    private boolean removeRaw(K key, Owner owner) {
        OwnerRoles owners = byKey.get(key);
        return owners == null || drop(key, owners, owner);
    }

    /** Stores {@code owners} (those of {@code key} now, or null) with {@code owner} holding with {@code role}. */
    private void put(K key, OwnerRoles owners, Owner owner, PhysicalRule.Role role) {
        byKey.put(key, owners == null ? OwnerRoles.of(owner, role) : owners.with(owner, role));
    }

    /** Stores {@code owners} (those of {@code key} now) without {@code owner}; true when none is left. */
    private boolean drop(K key, OwnerRoles owners, Owner owner) {
        OwnerRoles left = owners.without(owner);
        if (left == null) {
            byKey.remove(key);
            return true;
        }
        byKey.put(key, left);
        return false;
    }
}
