package org.uno.oneswitch.translate;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
    private final Map<K, LinkedHashMap<Owner, PhysicalRule.Role>> byKey = new HashMap<>();
    private final Deque<Runnable> undo = new ArrayDeque<>();
    private boolean recording;

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
        LinkedHashMap<Owner, PhysicalRule.Role> owners = byKey.computeIfAbsent(key, k -> new LinkedHashMap<>());
        boolean existed = owners.containsKey(owner);
        PhysicalRule.Role prev = owners.put(owner, role);
        if (recording) {
            undo.push(existed ? () -> putRaw(key, owner, prev) : () -> removeRaw(key, owner));
        }
    }

    /** {@code owner} no longer holds {@code key}; true when nobody holds it any more. */
    boolean remove(K key, Owner owner) {
        LinkedHashMap<Owner, PhysicalRule.Role> owners = byKey.get(key);
        if (owners == null || !owners.containsKey(owner)) {
            return owners == null;
        }
        PhysicalRule.Role prev = owners.remove(owner);
        if (recording) {
            undo.push(() -> putRaw(key, owner, prev));
        }
        if (owners.isEmpty()) {
            byKey.remove(key);
            return true;
        }
        return false;
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
        return byKey.containsKey(key);
    }

    /** True when only retirements hold {@code key}. */
    boolean onlyRetired(K key) {
        for (Owner o : byKey.getOrDefault(key, new LinkedHashMap<>()).keySet()) {
            if (o.kind() != Owner.Kind.RETIRED) {
                return false;
            }
        }
        return true;
    }

    List<Owner> owners(K key) {
        LinkedHashMap<Owner, PhysicalRule.Role> owners = byKey.get(key);
        return owners == null ? List.of() : new ArrayList<>(owners.keySet());
    }

    Optional<Owner> first(K key) {
        LinkedHashMap<Owner, PhysicalRule.Role> owners = byKey.get(key);
        return owners == null ? Optional.empty() : owners.keySet().stream().findFirst();
    }

    /** The role the first owner gives {@code key}. */
    Optional<PhysicalRule.Role> role(K key) {
        LinkedHashMap<Owner, PhysicalRule.Role> owners = byKey.get(key);
        return owners == null ? Optional.empty() : owners.values().stream().findFirst();
    }

    /** The virtual rule whose counting entry {@code key} is. */
    Optional<Long> countingRule(K key) {
        LinkedHashMap<Owner, PhysicalRule.Role> owners = byKey.get(key);
        if (owners != null) {
            for (Map.Entry<Owner, PhysicalRule.Role> e : owners.entrySet()) {
                if (e.getValue() == PhysicalRule.Role.COUNTING && e.getKey().kind() == Owner.Kind.RULE) {
                    return Optional.of(e.getKey().id());
                }
            }
        }
        return Optional.empty();
    }

    private void putRaw(K key, Owner owner, PhysicalRule.Role role) {
        byKey.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(owner, role);
    }

    private void removeRaw(K key, Owner owner) {
        LinkedHashMap<Owner, PhysicalRule.Role> owners = byKey.get(key);
        if (owners != null) {
            owners.remove(owner);
            if (owners.isEmpty()) {
                byKey.remove(key);
            }
        }
    }
}
