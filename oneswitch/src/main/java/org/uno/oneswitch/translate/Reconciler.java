package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.uno.oneswitch.model.Instruction;

/**
 * The changes that make a physical switch's flow table equal to the plan: entries missing or
 * different (instructions or cookie) are added (an OpenFlow ADD replaces an entry with the same
 * key), entries not in the plan are deleted; equal entries are left alone, so their counters and
 * the packets using them are not disturbed. Pure.
 */
public final class Reconciler {
    private Reconciler() {
    }

    /** Changes turning {@code actual} into {@code desired} (adds first, then deletes). */
    public static List<PhysicalChange> diff(Collection<InstalledEntry> desired, Collection<InstalledEntry> actual) {
        Map<PhysicalKey, InstalledEntry> have = new HashMap<>();
        for (InstalledEntry e : actual) {
            have.put(e.key(), e);
        }
        List<PhysicalChange> out = new ArrayList<>();
        for (InstalledEntry want : desired) {
            InstalledEntry got = have.remove(want.key());
            if (got == null || !got.cookie().equals(want.cookie())
                    || !normalize(got.instructions()).equals(normalize(want.instructions()))) {
                out.add(new PhysicalChange(PhysicalChange.Kind.ADD, want.key(), want.instructions(), want.cookie()));
            }
        }
        for (InstalledEntry stray : have.values()) {
            out.add(new PhysicalChange(PhysicalChange.Kind.DELETE, stray.key(), List.of(), stray.cookie()));
        }
        return out;
    }

    /**
     * Instructions as a switch reports them back: empty action lists are dropped (Open vSwitch does
     * not report them), so a planned entry and the same entry read back compare equal.
     */
    static List<Instruction> normalize(List<Instruction> instructions) {
        List<Instruction> out = new ArrayList<>(instructions.size());
        for (Instruction i : instructions) {
            boolean empty = i instanceof Instruction.ApplyActions a && a.actions().isEmpty()
                    || i instanceof Instruction.WriteActions w && w.actions().isEmpty();
            if (!empty) {
                out.add(i);
            }
        }
        return out;
    }
}
