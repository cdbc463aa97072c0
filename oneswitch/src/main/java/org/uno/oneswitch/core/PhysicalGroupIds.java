package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.List;

import org.projectfloodlight.openflow.types.OFGroup;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.store.IdTable;
import org.uno.oneswitch.translate.Layout;

/**
 * The ids of the virtual groups' copies on the physical switches. A controller may use any group id
 * up to OFPG_MAX, as on one Open vSwitch bridge, but ids from {@link Layout#FIRST_RESERVED_GROUP} up
 * are OneSwitch's own groups' (port, flood and tag groups). A group keeps its id on the switches
 * unless it is one of those or another group's copies already have it; then it gets the highest
 * free id below OneSwitch's. The id is chosen when the group is added and kept until it is deleted,
 * so the rules and groups that apply it never need translating again for it. The controller only
 * ever sees its own ids: translation renames, stats name the virtual group.
 */
final class PhysicalGroupIds {
    private final IdTable<VirtualGroup> table;

    PhysicalGroupIds(IdTable<VirtualGroup> table) {
        this.table = table;
    }

    /** The physical id for a new group {@code id} (not in the table). */
    long choose(long id) {
        if (id < Layout.FIRST_RESERVED_GROUP && !table.physicalIdTaken(id)) {
            return id;
        }
        long p = Layout.FIRST_RESERVED_GROUP - 1;
        while (table.physicalIdTaken(p)) {
            p--;
        }
        return p;
    }

    /** {@code rule} with the groups it applies under their physical ids (the same rule when none is renumbered). */
    VirtualRule rename(VirtualRule rule) {
        boolean any = false;
        for (Instruction ins : rule.instructions()) {
            any |= renames(Instruction.actionsOf(ins));
        }
        if (!any) {
            return rule;   // nearly every rule: nothing to copy
        }
        List<Instruction> out = new ArrayList<>(rule.instructions().size());
        for (Instruction ins : rule.instructions()) {
            if (ins instanceof Instruction.ApplyActions a) {
                out.add(new Instruction.ApplyActions(rename(a.actions())));
            } else if (ins instanceof Instruction.WriteActions w) {
                out.add(new Instruction.WriteActions(rename(w.actions())));
            } else {
                out.add(ins);
            }
        }
        return rule.toBuilder().instructions(out).build();
    }

    /** {@code group} as its copies are: its physical id, and the groups its buckets apply or watch under theirs. */
    VirtualGroup rename(VirtualGroup group) {
        List<Bucket> buckets = new ArrayList<>(group.buckets().size());
        for (Bucket b : group.buckets()) {
            buckets.add(new Bucket(b.weight(), b.watchPort(), rename(b.watchGroup()), rename(b.actions())));
        }
        return new VirtualGroup(group.physicalId(), group.type(), buckets);
    }

    /** {@code actions} with each group action under its group's physical id. */
    List<Action> rename(List<Action> actions) {
        if (!renames(actions)) {
            return actions;
        }
        List<Action> out = new ArrayList<>(actions.size());
        for (Action a : actions) {
            out.add(a instanceof Action.Group g ? new Action.Group(rename(g.group())) : a);
        }
        return out;
    }

    /** {@code actions} of a packet-out under the physical ids; a group that does not exist is refused. */
    List<Action> renameApplied(List<Action> actions) throws BadActionException {
        GroupService.requireExisting(table, actions);
        return rename(actions);
    }

    private boolean renames(List<Action> actions) {
        for (Action a : actions) {
            if (a instanceof Action.Group g && !rename(g.group()).equals(g.group())) {
                return true;
            }
        }
        return false;
    }

    /**
     * A group reference under its physical id. A bucket may watch a group that does not exist: it
     * watches {@link Layout#ABSENT_GROUP}, never a copy that has that id (the group service translates
     * the watchers again when the group comes or goes); actions never apply a missing group (refused).
     */
    private OFGroup rename(OFGroup group) {
        if (group.equals(OFGroup.ANY) || group.equals(OFGroup.ALL)) {
            return group;
        }
        long id = Integer.toUnsignedLong(group.getGroupNumber());
        long physical = table.get(id).map(VirtualGroup::physicalId).orElse(Layout.ABSENT_GROUP);
        return OFGroup.of((int) physical);
    }
}
