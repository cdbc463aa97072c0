package org.uno.oneswitch.translate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
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
 *
 * <p>A set of one port always gets a tag: sets of several ports stop taking tags {@link
 * #SINGLE_PORT_RESERVE} short of the end, which is as many ports as one Open vSwitch bridge can
 * have (ofport numbers below 0xff00). A set refused a tag is sent as one copy per port ({@code
 * TagRoutes.sendTo}), so no translation fails for want of tags unless the far switches have more
 * virtual ports than one bridge could have.
 */
public final class TagSpace {
    /** Tags only single-port sets may take (one Open vSwitch bridge has fewer ports). */
    static final int SINGLE_PORT_RESERVE = 0xff00;

    private final Map<List<Integer>, Integer> byMembers = new HashMap<>();
    private final Map<Integer, List<Integer>> members = new TreeMap<>();
    private final Set<Integer> unreferenced = new HashSet<>();
    private final int first;
    private final int lastTag;
    private final int maxSetTags;
    /** Entries referencing each tag, indexed by tag and grown as tags are used. */
    private int[] refs = new int[64];
    private int setTags;
    private int last;
    private long version;

    public TagSpace() {
        this(Layout.FIRST_TAG, Layout.LAST_TAG, SINGLE_PORT_RESERVE);
    }

    /** Tags {@code first}..{@code lastTag}, the last {@code singlePortReserve} of them for single ports only. */
    TagSpace(int first, int lastTag, int singlePortReserve) {
        this.first = first;
        this.lastTag = lastTag;
        this.maxSetTags = lastTag - first + 1 - singlePortReserve;
        this.last = first - 1;
    }

    /**
     * The tag of the virtual ports {@code ports}, allocated if it has none; empty for a set of
     * several ports when the tags left are kept for single ports (send one copy per port then).
     */
    public OptionalInt reserve(Collection<OFPort> ports) throws TranslationConflictException {
        List<Integer> key = key(ports);
        Integer tag = byMembers.get(key);
        if (tag != null) {
            return OptionalInt.of(tag);
        }
        if (key.size() > 1 && setTags >= maxSetTags) {
            return OptionalInt.empty();
        }
        int t = nextFree();
        byMembers.put(key, t);
        members.put(t, key);
        unreferenced.add(t);
        if (key.size() > 1) {
            setTags++;
        }
        last = t;
        version++;
        return OptionalInt.of(t);
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
            if (t < first) {
                continue;   // saved with 16-bit tags (label = tag x 16): its entries get tags anew
            }
            if (t > lastTag || members.containsKey(t)) {
                throw new IllegalArgumentException("bad saved tag " + t);
            }
            List<Integer> key = List.copyOf(e.getValue());
            byMembers.put(key, t);
            members.put(t, key);
            unreferenced.add(t);
            if (key.size() > 1) {
                setTags++;
            }
            last = Math.max(last, t);
        }
    }

    void retain(int tag) {
        if (tag >= refs.length) {
            refs = Arrays.copyOf(refs, Math.max(tag + 1, Math.min(refs.length * 2, lastTag + 1)));
        }
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
            if (t >= refs.length || refs[t] == 0) {
                List<Integer> key = members.remove(t);
                if (key != null) {
                    byMembers.remove(key);
                    if (key.size() > 1) {
                        setTags--;
                    }
                    version++;
                }
            }
        }
        unreferenced.clear();
    }

    private int nextFree() throws TranslationConflictException {
        int span = lastTag - first + 1;
        for (int i = 1; i <= span; i++) {
            int t = first + Math.floorMod(last - first + i, span);
            if (!members.containsKey(t)) {
                return t;
            }
        }
        throw new TranslationConflictException("all " + span + " flow-id tags are in use (one per set of egress "
                + "ports on other switches, more than one bridge has ports)");
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
