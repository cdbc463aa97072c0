package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import org.projectfloodlight.openflow.protocol.OFBadActionCode;
import org.projectfloodlight.openflow.protocol.OFGroupModFailedCode;
import org.projectfloodlight.openflow.types.OFGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.GroupModFailedException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.store.IdTable;
import org.uno.oneswitch.translate.Owner;
import org.uno.oneswitch.translate.RuleValidator;
import org.uno.oneswitch.translate.Translation;

/**
 * Applies group_mods (OpenFlow 1.3 §6.5) to the virtual group table and the physical switches:
 * each group exists on every switch where packets can enter, with its buckets localised there.
 * Deleting a group deletes the rules that apply it, as OpenFlow says; a group another group
 * chains to cannot be deleted (CHAINED_GROUP), and chains cannot loop.
 */
public final class GroupService {
    private static final Logger LOG = LoggerFactory.getLogger(GroupService.class);
    private final IdTable<VirtualGroup> table;
    private final PlanService planner;
    private final FlowService flows;
    private final Supplier<PortMap> ports;
    private final Runnable changed;
    private final Refusals refusals;

    public GroupService(IdTable<VirtualGroup> table, PlanService planner, FlowService flows, Supplier<PortMap> ports,
                        Runnable changed, Refusals refusals) {
        this.table = table;
        this.planner = planner;
        this.flows = flows;
        this.ports = ports;
        this.changed = changed;
        this.refusals = refusals;
    }

    public void groupMod(GroupModRequest req, PhysicalNetwork.ErrorListener onError) throws OpenFlowException {
        VirtualGroup g = req.group();
        switch (req.command()) {
            case ADD, MODIFY -> {
                RuleValidator.group(g);
                boolean exists = table.get(g.id()).isPresent();
                if (req.command() == GroupModRequest.Command.ADD && exists) {
                    throw new GroupModFailedException(OFGroupModFailedCode.GROUP_EXISTS, "group " + g.id() + " exists");
                }
                if (req.command() == GroupModRequest.Command.MODIFY && !exists) {
                    throw new GroupModFailedException(OFGroupModFailedCode.UNKNOWN_GROUP, "no group " + g.id());
                }
                checkChains(g);
                Optional<VirtualGroup> before = table.get(g.id());
                // A modified group keeps its copies' id, so the rules applying it stay as they are.
                VirtualGroup stored = g.withPhysicalId(before.map(VirtualGroup::physicalId)
                        .orElseGet(() -> planner.groupIds().choose(g.id())));
                try {
                    planner.apply(Map.of(Owner.group(g.id()), planner.translate(stored, ports.get())), false,
                            refusals.of(onError, () -> undo(stored, before)));
                } catch (TranslationConflictException e) {
                    throw new GroupModFailedException(OFGroupModFailedCode.BAD_BUCKET, e.getMessage());
                }
                table.put(stored);
                if (!exists) {
                    translateWatchers(Set.of(g.id()));
                }
            }
            case DELETE -> {
                List<Long> ids = g.id() == GroupModRequest.ALL ? table.all().stream().map(VirtualGroup::id).toList()
                        : table.get(g.id()).map(x -> List.of(x.id())).orElse(List.of());
                Set<Long> deleting = new HashSet<>(ids);
                for (VirtualGroup other : table.all()) {
                    if (!deleting.contains(other.id()) && other.referencedGroups().stream().anyMatch(deleting::contains)) {
                        throw new GroupModFailedException(OFGroupModFailedCode.CHAINED_GROUP, "group " + other.id()
                                + " forwards to a group being deleted");
                    }
                }
                for (long id : ids) {
                    flows.removeUsersOf(id);
                }
                Map<Owner, Translation> gone = new LinkedHashMap<>();
                ids.forEach(id -> gone.put(Owner.group(id), Translation.EMPTY));
                planner.apply(gone, false, onError);
                ids.forEach(table::remove);
                translateWatchers(deleting);
            }
            default -> throw new IllegalStateException("command " + req.command());
        }
        changed.run();
    }

    /**
     * Takes back an add or modify a physical switch refused: the group returns to {@code before}
     * (or is gone), unless a later request has changed it since. Rules applying a group that was
     * never accepted were refused too (their entries name a group the switch does not have).
     */
    private void undo(VirtualGroup refused, Optional<VirtualGroup> before) {
        if (!table.get(refused.id()).filter(refused::equals).isPresent()) {
            return;
        }
        try {
            if (before.isPresent()) {
                planner.apply(Map.of(Owner.group(refused.id()), planner.translate(before.get(), ports.get())), false,
                        PlanService::logError);
                table.put(before.get());
            } else {
                flows.removeUsersOf(refused.id());
                planner.apply(Map.of(Owner.group(refused.id()), Translation.EMPTY), false, PlanService::logError);
                table.remove(refused.id());
                translateWatchers(Set.of(refused.id()));
            }
        } catch (TranslationConflictException e) {
            LOG.error("cannot undo a refused group_mod (group {} stays as the request left it): {}", refused.id(),
                    e.describe());
            return;
        }
        changed.run();
    }

    /** Puts back a saved group (its translation is planned with everything else afterwards). */
    void restore(VirtualGroup g) {
        table.put(g);
    }

    /** Makes group {@code id} what the state file holds, {@code durable} or nothing; the caller plans the translation. */
    void revert(long id, VirtualGroup durable) {
        if (durable == null) {
            table.remove(id);
        } else {
            table.put(durable);
        }
    }

    /**
     * Translates again the groups with a fast-failover bucket watching one of {@code ids}, groups that
     * have just come or gone: their copies now watch those groups' copies, or nothing (see
     * {@link PhysicalGroupIds}).
     */
    private void translateWatchers(Set<Long> ids) {
        Map<Owner, Translation> out = new LinkedHashMap<>();
        try {
            for (VirtualGroup w : table.all()) {
                if (watchesOneOf(w, ids)) {
                    out.put(Owner.group(w.id()), planner.translate(w, ports.get()));
                }
            }
            if (!out.isEmpty()) {
                planner.apply(out, false, PlanService::logError);
            }
        } catch (TranslationConflictException e) {
            // Only the id a bucket watches changes: the tags and entries are those the group has.
            throw new IllegalStateException("a watched group's coming or going cannot conflict", e);
        }
    }

    private static boolean watchesOneOf(VirtualGroup g, Set<Long> ids) {
        for (Bucket b : g.buckets()) {
            if (!b.watchGroup().equals(OFGroup.ANY) && ids.contains(Integer.toUnsignedLong(b.watchGroup().getGroupNumber()))) {
                return true;
            }
        }
        return false;
    }

    /** Refuses {@code actions} when they apply a group that does not exist (OpenFlow's BAD_OUT_GROUP). */
    static void requireExisting(IdTable<VirtualGroup> groups, List<Action> actions) throws BadActionException {
        for (Action a : actions) {
            if (a instanceof Action.Group g && groups.get(Integer.toUnsignedLong(g.group().getGroupNumber())).isEmpty()) {
                throw new BadActionException(OFBadActionCode.BAD_OUT_GROUP, "group " + g.group() + " does not exist");
            }
        }
    }

    /** Every group, by id. */
    public List<VirtualGroup> all() {
        return new ArrayList<>(table.all());
    }

    /** Refuses buckets that apply a group that does not exist, or a chain that comes back to {@code g}. */
    private void checkChains(VirtualGroup g) throws OpenFlowException {
        for (long ref : g.referencedGroups()) {
            if (ref == g.id()) {
                throw new GroupModFailedException(OFGroupModFailedCode.LOOP, "group " + g.id() + " applies itself");
            }
            if (table.get(ref).isEmpty()) {
                throw new BadActionException(OFBadActionCode.BAD_OUT_GROUP, "group " + ref + " does not exist");
            }
            if (reaches(ref, g.id(), new HashSet<>())) {
                throw new GroupModFailedException(OFGroupModFailedCode.LOOP, "group " + g.id() + " would loop through "
                        + ref);
            }
        }
    }

    private boolean reaches(long from, long target, Set<Long> seen) {
        if (!seen.add(from)) {
            return false;
        }
        for (long next : table.get(from).map(VirtualGroup::referencedGroups).orElse(List.of())) {
            if (next == target || reaches(next, target, seen)) {
                return true;
            }
        }
        return false;
    }
}
