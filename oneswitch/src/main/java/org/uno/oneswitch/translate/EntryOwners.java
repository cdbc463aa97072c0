package org.uno.oneswitch.translate;

import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.store.PhysicalFlowTable;

/**
 * The owners of the planned entries, kept in the entries' own columns: one rule holding an entry (nearly
 * every entry) as its id and role, so that no object is kept for it; any other set of owners as its object.
 * An entry's owners are set only while the entry is planned, and go with it.
 */
final class EntryOwners implements Holders.Store<PhysicalKey> {
    private final PhysicalFlowTable flows;

    EntryOwners(PhysicalFlowTable flows) {
        this.flows = flows;
    }

    @Override
    public OwnerRoles get(PhysicalKey key) {
        int slot = flows.slotOf(key);
        return slot < 0 ? null : at(slot);
    }

    /** The owners of the entry in {@code slot}, or null. */
    OwnerRoles at(int slot) {
        int code = flows.ownerCode(slot);
        if (code != 0) {
            return new OwnerRoles.SoleRule(flows.ownerId(slot), OwnerRoles.ROLES[code - 1]);
        }
        return (OwnerRoles) flows.owners(slot);
    }

    @Override
    public void put(PhysicalKey key, OwnerRoles owners) {
        int slot = flows.slotOf(key);
        if (slot < 0) {
            throw new IllegalStateException("owners for " + key + ", which is not planned");
        }
        if (owners instanceof OwnerRoles.SoleRule one) {
            flows.setOwners(slot, null, one.rule(), one.role().ordinal() + 1);
        } else {
            flows.setOwners(slot, owners, 0, 0);
        }
    }

    @Override
    public void remove(PhysicalKey key) {
        int slot = flows.slotOf(key);
        if (slot >= 0) {
            flows.setOwners(slot, null, 0, 0);
        }
    }
}
