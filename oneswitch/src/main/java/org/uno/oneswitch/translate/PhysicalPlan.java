package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PhysicalRule;
import org.uno.oneswitch.store.PhysicalFlowTable;
import org.uno.oneswitch.store.PhysicalFlowTable.Content;

/**
 * The physical flow entries and groups that everything installed needs, with who needs each, and
 * the changes that follow from replacing some owners' translations.
 *
 * <p>Invariants: an entry (switch, table, priority, match) or group (switch, id) exists once, with
 * one content every owner needing it agrees on, and as long as at least one owner needs it
 * (entries kept only by a retirement yield to a real owner that needs the key with other
 * content); each entry keeps its cookie for its whole life and cookies are never reused; a tag is
 * allocated while some entry carries it. {@link #replace} is all-or-nothing. No I/O: the caller
 * sends the changes.
 */
public final class PhysicalPlan {
    /** High 16 bits of every physical cookie OneSwitch allocates ("UN"), so strays are easy to see. */
    public static final long COOKIE_TAG = 0x554eL << 48;
    /**
     * High 16 bits of the cookies of sealed entries ("UO"): entries holding an action openflowj
     * cannot read ({@link SealedAction}). They differ from {@link #COOKIE_TAG} in
     * {@link #SEALED_COOKIE_BIT}, by which a switch's flow dump leaves them out; they are written
     * again whenever the switch connects.
     */
    public static final long SEALED_COOKIE_TAG = 0x554fL << 48;
    public static final long SEALED_COOKIE_BIT = 1L << 48;
    private static final long COOKIE_MASK = (1L << 48) - 1;

    private final TagSpace tags;
    /** The planned entries' content, in columns (who holds each is in {@link #flowHolders}). */
    private final PhysicalFlowTable flows = new PhysicalFlowTable();
    private final EntryOwners flowOwners = new EntryOwners(flows);
    private final Holders<PhysicalKey> flowHolders = new Holders<>(flowOwners);
    private final Map<PhysicalGroup.GroupKey, PhysicalGroup> groups = new HashMap<>();
    private final Holders<PhysicalGroup.GroupKey> groupHolders = new Holders<>();
    private final Translations byOwner = new Translations(flows);
    /** One object per entry that several owners hold, which their translations share. */
    private final Map<PhysicalKey, PhysicalRule> sharedFlows = new HashMap<>();
    private long nextCookie = 1;

    public PhysicalPlan(TagSpace tags) {
        this.tags = tags;
    }

    /** The tags of this plan. */
    public TagSpace tags() {
        return tags;
    }

    /**
     * Replaces the translations of the given owners ({@link Translation#EMPTY} removes an owner)
     * and returns the physical changes. Throws, changing nothing, when two owners need the same
     * entry or group with different content.
     */
    public PlanDiff replace(Map<Owner, Translation> translations) throws TranslationConflictException {
        PlanDiff diff = replaceKeepingTags(translations);
        tags.sweep();
        return diff;
    }

    /**
     * Like {@link #replace}, but the entries and groups the change would delete are kept,
     * unchanged, under the retirement {@code retired} (they go with
     * {@code replace(Map.of(retired, Translation.EMPTY))}), and so are the tags they carry.
     * Returns the changes without those deletions.
     */
    public PlanDiff replaceRetiring(Map<Owner, Translation> translations, Owner retired)
            throws TranslationConflictException {
        List<Translation> given = translations.keySet().stream().map(this::translationOf).toList();
        PlanDiff diff = replaceKeepingTags(translations);
        PlanDiff live = retire(diff, retired, given);
        tags.sweep();
        return live;
    }

    private PlanDiff replaceKeepingTags(Map<Owner, Translation> translations) throws TranslationConflictException {
        Map<PhysicalKey, Content> flowsBefore = new LinkedHashMap<>();
        Map<PhysicalKey, PhysicalRule.Role> rolesBefore = new HashMap<>();
        Map<PhysicalGroup.GroupKey, PhysicalGroup> groupsBefore = new LinkedHashMap<>();
        Map<Owner, Translation> previous = new HashMap<>();
        flowHolders.begin();
        groupHolders.begin();
        try {
            for (Owner owner : translations.keySet()) {
                Translation old = byOwner.remove(owner);
                previous.put(owner, old);
                if (old != null) {
                    for (PhysicalRule r : old.flows()) {
                        rememberFlow(flowsBefore, rolesBefore, r.physicalKey());
                        if (flowHolders.remove(r.physicalKey(), owner)) {
                            putFlow(r.physicalKey(), null);
                        }
                    }
                    for (PhysicalGroup g : old.groups()) {
                        remember(groupsBefore, groups, g.groupKey());
                        if (groupHolders.remove(g.groupKey(), owner)) {
                            putGroup(g.groupKey(), null);
                        }
                    }
                }
            }
            for (Map.Entry<Owner, Translation> e : translations.entrySet()) {
                for (PhysicalRule r : e.getValue().flows()) {
                    rememberFlow(flowsBefore, rolesBefore, r.physicalKey());
                    addFlow(r, e.getKey(), flowsBefore.get(r.physicalKey()));
                }
                for (PhysicalGroup g : e.getValue().groups()) {
                    remember(groupsBefore, groups, g.groupKey());
                    addGroup(g, e.getKey());
                }
                if (!e.getValue().isEmpty()) {
                    byOwner.put(e.getKey(), shareEqual(e.getValue()));
                }
            }
        } catch (TranslationConflictException ex) {
            // the translations given go before the entries they name may (a translation can be kept as its entry's
            // slot); the entries come back before their owners, which are kept with them
            previous.keySet().forEach(byOwner::drop);
            flowsBefore.forEach(this::putFlow);
            flowHolders.rollback();
            groupHolders.rollback();
            groupsBefore.forEach(this::putGroup);
            previous.forEach((owner, t) -> {
                if (t != null) {
                    byOwner.put(owner, t);
                }
            });
            tags.sweep();
            throw ex;
        }
        flowHolders.commit();
        groupHolders.commit();
        return diff(flowsBefore, rolesBefore, groupsBefore);
    }

    /**
     * Puts back what {@code diff} deletes, under {@code owner}, and adds {@code owner} as a holder of what the
     * {@code given} up translations held that only earlier retirements hold now (the first of those to end must
     * not take away what this one keeps); returns the diff without the deletions.
     */
    private PlanDiff retire(PlanDiff diff, Owner owner, List<Translation> given) {
        List<PhysicalRule> keptFlows = new ArrayList<>();
        for (PhysicalChange c : diff.flowDeletes()) {
            putFlow(c.key(), new Content(c.instructions(), c.cookie().getValue(), c.tag()));
            flowHolders.add(c.key(), owner, c.role());
            keptFlows.add(new PhysicalRule(c.key().switchId(), c.key().key(), c.instructions(), c.role(), c.tag()));
        }
        List<PhysicalGroup> keptGroups = new ArrayList<>();
        for (GroupChange c : diff.groupDeletes()) {
            putGroup(c.group().groupKey(), c.group());
            groupHolders.add(c.group().groupKey(), owner, PhysicalRule.Role.INFRASTRUCTURE);
            keptGroups.add(c.group());
        }
        for (Translation t : given) {
            for (PhysicalRule r : t.flows()) {
                PhysicalKey key = r.physicalKey();
                if (flowHolders.held(key) && flowHolders.onlyRetired(key) && !flowHolders.owners(key).contains(owner)) {
                    flowHolders.add(key, owner, r.role());
                    keptFlows.add(r);
                }
            }
            for (PhysicalGroup g : t.groups()) {
                PhysicalGroup.GroupKey key = g.groupKey();
                if (groupHolders.held(key) && groupHolders.onlyRetired(key) && !groupHolders.owners(key).contains(owner)) {
                    groupHolders.add(key, owner, PhysicalRule.Role.INFRASTRUCTURE);
                    keptGroups.add(g);
                }
            }
        }
        Translation old = byOwner.get(owner);
        List<PhysicalRule> allFlows = new ArrayList<>(old == null ? List.of() : old.flows());
        allFlows.addAll(keptFlows);
        List<PhysicalGroup> allGroups = new ArrayList<>(old == null ? List.of() : old.groups());
        allGroups.addAll(keptGroups);
        byOwner.put(owner, new Translation(allFlows, allGroups));
        return diff.withoutDeletes();
    }

    /** The flow entries planned for {@code switchId}. */
    public List<InstalledEntry> entries(String switchId) {
        List<InstalledEntry> out = new ArrayList<>();
        flows.forEachOn(switchId, (key, e) -> out.add(new InstalledEntry(key, e.instructions(), e.u64())));
        return out;
    }

    /** The groups planned for {@code switchId}. */
    public List<PhysicalGroup> groups(String switchId) {
        return groups.values().stream().filter(g -> g.switchId().equals(switchId)).toList();
    }

    /** What {@code owner} needs (empty when nothing). */
    public Translation translationOf(Owner owner) {
        Translation t = byOwner.get(owner);
        return t == null ? Translation.EMPTY : t;
    }

    /** The owners that have a translation, retirements included. */
    public Collection<Owner> owners() {
        return byOwner.owners();
    }

    /** The cookie of the planned entry {@code key}. */
    public Optional<U64> cookieOf(PhysicalKey key) {
        Content e = flows.get(key);
        return e == null ? Optional.empty() : Optional.of(e.u64());
    }

    /** The planned entry with {@code cookie}. */
    public Optional<InstalledEntry> entryOf(U64 cookie) {
        PhysicalKey key = flows.keyOf(cookie.getValue());
        return key == null ? Optional.empty()
                : Optional.of(new InstalledEntry(key, flows.get(key).instructions(), cookie));
    }

    /** Who needs the entry with {@code cookie} (empty for an unknown cookie). */
    public List<Owner> ownersOf(U64 cookie) {
        PhysicalKey key = flows.keyOf(cookie.getValue());
        return key == null ? List.of() : flowHolders.owners(key);
    }

    /** Whether a translation other than a retirement holds the entry {@code key}. */
    public boolean heldLive(PhysicalKey key) {
        return !flowHolders.onlyRetired(key);
    }

    /** Whether a translation other than a retirement holds the group {@code key}. */
    public boolean heldLive(PhysicalGroup.GroupKey key) {
        return !groupHolders.onlyRetired(key);
    }

    /** What the planned entry {@code key} is for. */
    public Optional<PhysicalRule.Role> roleOf(PhysicalKey key) {
        return flowHolders.role(key);
    }

    /** The planned entries whose counters are virtual rule {@code ruleId}'s counters. */
    public List<InstalledEntry> countingEntries(long ruleId) {
        List<InstalledEntry> out = new ArrayList<>();
        for (PhysicalRule r : translationOf(Owner.rule(ruleId)).flows()) {
            if (r.role() == PhysicalRule.Role.COUNTING) {
                Content e = flows.get(r.physicalKey());
                out.add(new InstalledEntry(r.physicalKey(), e.instructions(), e.u64()));
            }
        }
        return out;
    }

    /** The virtual rule an entry with {@code cookie} counts for. */
    public Optional<Long> countingOwner(U64 cookie) {
        int slot = flows.slotOfCookie(cookie.getValue());
        OwnerRoles owners = slot < 0 ? null : flowOwners.at(slot);
        long rule = owners == null ? -1 : owners.countingRule();
        return rule < 0 ? Optional.empty() : Optional.of(rule);
    }

    /** Whether an entry with {@code cookie} is planned. */
    public boolean planned(U64 cookie) {
        return flows.hasCookie(cookie.getValue());
    }

    /**
     * Takes over {@code cookie} for the planned entry {@code key} (found on a switch with the
     * planned instructions, e.g. after a restart), so that the entry need not be replaced; false
     * when the cookie is not OneSwitch's or another entry has it.
     */
    public boolean adoptCookie(PhysicalKey key, U64 cookie) {
        Content e = flows.get(key);
        if (e == null || flows.hasCookie(cookie.getValue()) || (cookie.getValue() & ~COOKIE_MASK) != COOKIE_TAG) {
            return false;
        }
        putFlow(key, new Content(e.instructions(), cookie.getValue(), e.tag()));
        nextCookie = Math.max(nextCookie, (cookie.getValue() & COOKIE_MASK) + 1);
        return true;
    }

    /** The cookie number the plan allocates next. */
    public long nextCookie() {
        return nextCookie;
    }

    /**
     * Allocates cookies from {@code next} on (after a restart, so that the entries still on the
     * switches, whose cookies are adopted, never share a cookie with a new entry).
     */
    public void continueCookiesFrom(long next) {
        nextCookie = Math.max(nextCookie, next);
    }

    /** How many flow entries the plan holds on all switches. */
    public int size() {
        return flows.size();
    }

    /** How many groups the plan holds on all switches. */
    public int groupCount() {
        return groups.size();
    }

    private void rememberFlow(Map<PhysicalKey, Content> before, Map<PhysicalKey, PhysicalRule.Role> roles,
                              PhysicalKey key) {
        if (!before.containsKey(key)) {
            before.put(key, flows.get(key));
            flowHolders.role(key).ifPresent(role -> roles.put(key, role));
        }
    }

    private static <K, V> void remember(Map<K, V> before, Map<K, V> current, K key) {
        if (!before.containsKey(key)) {
            before.put(key, current.get(key));
        }
    }

    /** Adds one owner's need for an entry; {@code old} is the entry before this replace (keeps its cookie). */
    private void addFlow(PhysicalRule r, Owner owner, Content old) throws TranslationConflictException {
        PhysicalKey key = r.physicalKey();
        Content e = flows.get(key);
        if (e != null && !e.instructions().equals(r.instructions())) {
            if (!flowHolders.onlyRetired(key)) {
                throw new TranslationConflictException(flowHolders.first(key).orElseThrow() + " and " + owner
                        + " both need physical entry " + key + " with different actions");
            }
            flowHolders.dropRetired(key);
        }
        if (e == null || !e.instructions().equals(r.instructions()) || e.tag() != r.tag()) {
            // an entry that becomes sealed (or stops being) needs a cookie saying so: flow dumps go by it
            boolean sealed = sealed(r.instructions());
            long cookie = e != null && sealedCookie(e.cookie()) == sealed ? e.cookie()
                    : old != null && sealedCookie(old.cookie()) == sealed ? old.cookie()
                    : (sealed ? SEALED_COOKIE_TAG : COOKIE_TAG) | nextCookie++;
            putFlow(key, new Content(r.instructions(), cookie, r.tag()));
        }
        flowHolders.add(key, owner, r.role());
    }

    private static boolean sealedCookie(long cookie) {
        return (cookie & SEALED_COOKIE_BIT) != 0;
    }

    /** True for instructions holding an action openflowj cannot read back. */
    static boolean sealed(List<Instruction> instructions) {
        for (Instruction i : instructions) {
            if (i instanceof Instruction.ApplyActions a) {
                for (Action x : a.actions()) {  // a loop, not a stream: every planned entry comes here
                    if (x instanceof Action.Other o && o.raw() instanceof SealedAction) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private void addGroup(PhysicalGroup g, Owner owner) throws TranslationConflictException {
        PhysicalGroup e = groups.get(g.groupKey());
        if (e != null && !e.equals(g)) {
            if (!groupHolders.onlyRetired(g.groupKey())) {
                throw new TranslationConflictException(groupHolders.first(g.groupKey()).orElseThrow() + " and " + owner
                        + " both need group " + g.groupKey() + " with different buckets");
            }
            groupHolders.dropRetired(g.groupKey());
        }
        if (!g.equals(e)) {
            putGroup(g.groupKey(), g);
        }
        groupHolders.add(g.groupKey(), owner, PhysicalRule.Role.INFRASTRUCTURE);
    }

    /**
     * {@code t} with its entries that other owners hold too, and its groups, replaced by the equal
     * objects already kept for them: the rules crossing to one port share one delivery entry and
     * group, which were otherwise kept once per rule (about a third of what such a rule keeps).
     */
    private Translation shareEqual(Translation t) {
        List<PhysicalRule> sharedRules = new ArrayList<>(t.flows().size());
        boolean changed = false;
        for (PhysicalRule r : t.flows()) {
            PhysicalKey key = r.physicalKey();
            PhysicalRule use = sameOr(flowHolders.shared(key) ? sharedFlows.putIfAbsent(key, r) : null, r);
            changed |= use != r;
            sharedRules.add(use);
        }
        List<PhysicalGroup> sharedGroups = new ArrayList<>(t.groups().size());
        for (PhysicalGroup g : t.groups()) {
            PhysicalGroup use = sameOr(groups.get(g.groupKey()), g);
            changed |= use != g;
            sharedGroups.add(use);
        }
        // a translation of a rule's own entries only (the usual case) is kept as it came
        return changed ? new Translation(sharedRules, sharedGroups) : t;
    }

    /** {@code kept} when it equals {@code t} (so that {@code t} need not be kept too), else {@code t}. */
    private static <T> T sameOr(T kept, T t) {
        return kept != null && kept.equals(t) ? kept : t;
    }

    /** Sets (or with null removes) an entry and keeps the cookie index and tag references in step. */
    private void putFlow(PhysicalKey key, Content next) {
        sharedFlows.remove(key);
        Content prev = flows.put(key, next);
        if (prev != null && prev.tag() != 0) {
            tags.release(prev.tag());
        }
        if (next != null && next.tag() != 0) {
            tags.retain(next.tag());
        }
    }

    private void putGroup(PhysicalGroup.GroupKey key, PhysicalGroup next) {
        PhysicalGroup prev = next == null ? groups.remove(key) : groups.put(key, next);
        if (prev != null && prev.tag() != 0) {
            tags.release(prev.tag());
        }
        if (next != null && next.tag() != 0) {
            tags.retain(next.tag());
        }
    }

    private PlanDiff diff(Map<PhysicalKey, Content> flowsBefore, Map<PhysicalKey, PhysicalRule.Role> rolesBefore,
                          Map<PhysicalGroup.GroupKey, PhysicalGroup> groupsBefore) {
        List<PhysicalChange> adds = new ArrayList<>();
        List<PhysicalChange> modifies = new ArrayList<>();
        List<PhysicalChange> deletes = new ArrayList<>();
        for (Map.Entry<PhysicalKey, Content> e : flowsBefore.entrySet()) {
            Content old = e.getValue();
            Content now = flows.get(e.getKey());
            if (now == null && old != null) {
                deletes.add(change(PhysicalChange.Kind.DELETE, e.getKey(), old, rolesBefore.get(e.getKey())));
            } else if (now != null && old == null) {
                adds.add(change(PhysicalChange.Kind.ADD, e.getKey(), now, null));
            } else if (now != null && now.cookie() != old.cookie()) {
                // a modify keeps the switch's cookie (OpenFlow 1.3): an add replaces the entry with its new one
                adds.add(change(PhysicalChange.Kind.ADD, e.getKey(), now, null));
            } else if (now != null && !now.instructions().equals(old.instructions())) {
                modifies.add(change(PhysicalChange.Kind.MODIFY, e.getKey(), now, null));
            }
        }
        List<GroupChange> upserts = new ArrayList<>();
        List<GroupChange> groupDeletes = new ArrayList<>();
        for (Map.Entry<PhysicalGroup.GroupKey, PhysicalGroup> e : groupsBefore.entrySet()) {
            PhysicalGroup old = e.getValue();
            PhysicalGroup now = groups.get(e.getKey());
            if (now == null && old != null) {
                groupDeletes.add(new GroupChange(PhysicalChange.Kind.DELETE, old));
            } else if (now != null && old == null) {
                upserts.add(new GroupChange(PhysicalChange.Kind.ADD, now));
            } else if (now != null && !now.equals(old)) {
                upserts.add(new GroupChange(PhysicalChange.Kind.MODIFY, now));
            }
        }
        Map<PhysicalGroup.GroupKey, Integer> depths = new HashMap<>();
        upserts.sort(Comparator.comparingInt(c -> depth(c.group(), groupsBefore, depths)));
        groupDeletes.sort(Comparator.comparingInt(c -> -depth(c.group(), groupsBefore, depths)));
        return new PlanDiff(upserts, adds, modifies, deletes, groupDeletes);
    }

    /**
     * How long the chain of groups {@code g} applies is (0 for a group whose buckets apply none), so
     * that groups are added after, and deleted before, the groups they apply.
     */
    private int depth(PhysicalGroup g, Map<PhysicalGroup.GroupKey, PhysicalGroup> before,
                      Map<PhysicalGroup.GroupKey, Integer> memo) {
        Integer known = memo.get(g.groupKey());
        if (known != null) {
            return known;
        }
        memo.put(g.groupKey(), 0);
        int d = 0;
        for (Bucket b : g.buckets()) {
            for (Action a : b.actions()) {
                if (a instanceof Action.Group ref) {
                    PhysicalGroup.GroupKey k = new PhysicalGroup.GroupKey(g.switchId(),
                            Integer.toUnsignedLong(ref.group().getGroupNumber()));
                    PhysicalGroup e = groups.containsKey(k) ? groups.get(k) : before.get(k);
                    if (e != null) {
                        d = Math.max(d, 1 + depth(e, before, memo));
                    }
                }
            }
        }
        memo.put(g.groupKey(), d);
        return d;
    }

    private PhysicalChange change(PhysicalChange.Kind kind, PhysicalKey key, Content e, PhysicalRule.Role gone) {
        PhysicalRule.Role role = gone != null ? gone : flowHolders.role(key).orElse(PhysicalRule.Role.COUNTING);
        return new PhysicalChange(kind, key, e.instructions(), e.u64(), role, e.tag());
    }
}
