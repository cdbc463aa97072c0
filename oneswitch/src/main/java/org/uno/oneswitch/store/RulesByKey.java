package org.uno.oneswitch.store;

import java.util.Arrays;

import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;

import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.VirtualRule;

/**
 * Virtual rules by key (table, priority, match), with no object per rule: a rule is filed under its
 * key's hash, unboxed, in an open-addressing map, and the rare rules whose keys share a hash share an
 * array. (A map keyed by the RuleKey itself keeps an entry object and the key for each rule, and an
 * open-addressing one compares keys on every probe: here a probe compares numbers.)
 *
 * <p>Invariant: at most one rule per key.
 */
final class RulesByKey {
    /** Key hash -> the rule, or an array of the rules whose keys have that hash. */
    private final Long2ObjectOpenHashMap<Object> byHash = new Long2ObjectOpenHashMap<>();

    /** The rule with {@code key}, or null. */
    VirtualRule get(RuleKey key) {
        Object filed = byHash.get(key.hashCode());
        if (filed instanceof VirtualRule r) {
            return has(r, key) ? r : null;
        }
        if (filed != null) {
            for (VirtualRule r : (VirtualRule[]) filed) {
                if (has(r, key)) {
                    return r;
                }
            }
        }
        return null;
    }

    private static boolean has(VirtualRule r, RuleKey key) {
        return r.table() == key.table() && r.priority() == key.priority() && r.match().equals(key.match());
    }

    /** Files {@code rule}, replacing the rule with the same key if any. */
    void put(VirtualRule rule) {
        long hash = rule.key().hashCode();
        Object filed = byHash.get(hash);
        if (filed == null) {
            byHash.put(hash, rule);
        } else if (filed instanceof VirtualRule r) {
            if (r.sameKey(rule)) {
                byHash.put(hash, rule);
            } else {
                byHash.put(hash, new VirtualRule[] {r, rule});
            }
        } else {
            VirtualRule[] rules = (VirtualRule[]) filed;
            for (int i = 0; i < rules.length; i++) {
                if (rules[i].sameKey(rule)) {
                    rules[i] = rule;
                    return;
                }
            }
            VirtualRule[] more = Arrays.copyOf(rules, rules.length + 1);
            more[rules.length] = rule;
            byHash.put(hash, more);
        }
    }

    /** Removes the rule with {@code rule}'s key, if any. */
    void remove(VirtualRule rule) {
        long hash = rule.key().hashCode();
        Object filed = byHash.get(hash);
        if (filed instanceof VirtualRule r) {
            if (r.sameKey(rule)) {
                byHash.remove(hash);
            }
        } else if (filed != null) {
            VirtualRule[] rules = (VirtualRule[]) filed;
            for (int i = 0; i < rules.length; i++) {
                if (rules[i].sameKey(rule)) {
                    VirtualRule[] rest = new VirtualRule[rules.length - 1];
                    System.arraycopy(rules, 0, rest, 0, i);
                    System.arraycopy(rules, i + 1, rest, i, rest.length - i);
                    byHash.put(hash, rest.length == 1 ? rest[0] : rest);
                    return;
                }
            }
        }
    }
}
