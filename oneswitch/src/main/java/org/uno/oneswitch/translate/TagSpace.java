package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.TranslationConflictException;

/**
 * The flow-id tags in use: each tag stands for a set of virtual egress ports, and a packet that
 * crosses a PCIe link carries the tag of the ports it must leave from on the far side.
 *
 * <p>Tags are allocated, never hashed: one tag per distinct port set, the next free value after the
 * last one allocated (so a freed value is reused as late as possible, long after packets carrying
 * it left the links). A tag is referenced by the plan entries that push or match it; it is freed
 * when no entry references it any more, checked by {@link #sweep} after each plan change (a value
 * reserved by a translation that was then refused is freed there too).
 */
public final class TagSpace {
    private final Map<List<Integer>, Integer> byMembers = new HashMap<>();
    private final Map<Integer, List<Integer>> members = new TreeMap<>();
    private final int[] refs = new int[Layout.LAST_TAG + 1];
    private final Set<Integer> unreferenced = new HashSet<>();
    private int last = Layout.FIRST_TAG - 1;
    private long version;

    /** The tag of the virtual ports {@code ports}, allocated if it has none. */
    public int reserve(Collection<OFPort> ports) throws TranslationConflictException {
        List<Integer> key = key(ports);
        Integer tag = byMembers.get(key);
        if (tag != null) {
            return tag;
        }
        int t = nextFree();
        byMembers.put(key, t);
        members.put(t, key);
        unreferenced.add(t);
        last = t;
        version++;
        return t;
    }

    /** The virtual ports tag {@code tag} stands for (empty when it is not allocated). */
    public List<OFPort> portsOf(int tag) {
        return members.getOrDefault(tag, List.of()).stream().map(OFPort::of).toList();
    }

    /** Allocated tags and their ports, for persistence. */
    public Map<Integer, List<Integer>> allocations() {
        return Map.copyOf(members);
    }

    /** Changes whenever an allocation is made or freed (to persist allocations only when they changed). */
    public long version() {
        return version;
    }

    /** How many tags are allocated. */
    public int size() {
        return members.size();
    }

    /**
     * Restores allocations saved earlier (before anything is translated), so that a restarted
     * OneSwitch puts the same tags into the same entries; unused ones go at the next sweep.
     */
    public void restore(Map<Integer, List<Integer>> saved) {
        for (Map.Entry<Integer, List<Integer>> e : saved.entrySet()) {
            int t = e.getKey();
            if (t < Layout.FIRST_TAG || t > Layout.LAST_TAG || members.containsKey(t)) {
                throw new IllegalArgumentException("bad saved tag " + t);
            }
            List<Integer> key = List.copyOf(e.getValue());
            byMembers.put(key, t);
            members.put(t, key);
            unreferenced.add(t);
            last = Math.max(last, t);
        }
    }

    void retain(int tag) {
        refs[tag]++;
    }

    void release(int tag) {
        if (--refs[tag] == 0) {
            unreferenced.add(tag);
        }
    }

    /** Frees every tag no plan entry references. */
    void sweep() {
        for (int t : unreferenced) {
            if (refs[t] == 0) {
                List<Integer> key = members.remove(t);
                if (key != null) {
                    byMembers.remove(key);
                    version++;
                }
            }
        }
        unreferenced.clear();
    }

    private int nextFree() throws TranslationConflictException {
        int span = Layout.LAST_TAG - Layout.FIRST_TAG + 1;
        for (int i = 1; i <= span; i++) {
            int t = Layout.FIRST_TAG + Math.floorMod(last - Layout.FIRST_TAG + i, span);
            if (!members.containsKey(t)) {
                return t;
            }
        }
        throw new TranslationConflictException("all " + span + " flow-id tags are in use (one per set of egress "
                + "ports on other switches)");
    }

    private static List<Integer> key(Collection<OFPort> ports) {
        List<Integer> out = new ArrayList<>(ports.size());
        for (OFPort p : ports) {
            out.add(p.getPortNumber());
        }
        out.sort(Integer::compareUnsigned);
        return List.copyOf(out);
    }
}
