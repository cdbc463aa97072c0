package org.uno.oneswitch.store;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.VirtualRule;

/**
 * Virtual rules kept in columns: a rule is a slot, each of its fields an element of a primitive
 * array, its match bytes in a {@link MatchArena}; its instruction list is the shared one the
 * interner keeps (see {@code InstructionLists}), and three int columns link the slots for the
 * table's indexes. A stored rule is thus no object the collector copies; {@link #rule} makes a
 * {@link VirtualRule} to read.
 *
 * <p>Invariant: a slot is in use exactly while its instructions are not null; freed slots are reused.
 */
final class RuleColumns {
    /** No slot. */
    static final int NONE = SlotIndex.NONE;
    private static final OFFlowModFlags[] FLAGS = OFFlowModFlags.values();

    private long[] id = new long[Slots.FIRST_CAPACITY];
    private long[] cookie = new long[Slots.FIRST_CAPACITY];
    private long[] installed = new long[Slots.FIRST_CAPACITY];
    private int[] tablePriority = new int[Slots.FIRST_CAPACITY];   // table << 16 | priority
    private int[] timeouts = new int[Slots.FIRST_CAPACITY];        // idle << 16 | hard
    private int[] flags = new int[Slots.FIRST_CAPACITY];
    private int[] match = new int[Slots.FIRST_CAPACITY];
    private int[] matchHash = new int[Slots.FIRST_CAPACITY];
    private Object[] instructions = new Object[Slots.FIRST_CAPACITY];
    private int[] next = new int[Slots.FIRST_CAPACITY];
    private int[] prev = new int[Slots.FIRST_CAPACITY];
    private final Slots slots = new Slots();
    private MatchArena arena = new MatchArena();

    /** A slot for a new rule. */
    int allocate() {
        int slot = slots.allocate();
        if (slot == id.length) {
            grow(Slots.capacityAfter(id.length));
        }
        return slot;
    }

    /** Stores {@code r} in {@code slot} (a fresh one, or the slot of a rule with the same key). */
    void write(int slot, VirtualRule r) {
        if (instructions[slot] != null) {
            arena.free(match[slot]);
        }
        id[slot] = r.id();
        cookie[slot] = r.cookie().getValue();
        installed[slot] = r.installedNanos();
        tablePriority[slot] = r.table() << 16 | r.priority();
        timeouts[slot] = r.idleTimeout() << 16 | r.hardTimeout();
        flags[slot] = flagBits(r.flags());
        match[slot] = arena.add(r.match());
        matchHash[slot] = r.match().hashCode();
        instructions[slot] = r.instructions();
    }

    /** Frees {@code slot}; its links are the caller's to have undone. */
    void release(int slot) {
        arena.free(match[slot]);
        instructions[slot] = null;
        slots.release(slot);
        if (arena.wasteful()) {
            arena = arena.compacted(match, instructions, slots.highWater());
        }
    }

    /** The rule in {@code slot}, made from its columns. */
    @SuppressWarnings("unchecked")
    VirtualRule rule(int slot) {
        return VirtualRule.builder().id(id[slot]).table(table(slot)).priority(priority(slot))
                .match(arena.get(match[slot])).instructions((List<Instruction>) instructions[slot])
                .cookie(U64.of(cookie[slot])).flags(flagSet(flags[slot]))
                .idleTimeout(timeouts[slot] >>> 16).hardTimeout(timeouts[slot] & 0xffff)
                .installedNanos(installed[slot]).build();
    }

    /** Whether the rule in {@code slot} has the key (table, priority, match). */
    boolean hasKey(int slot, int table, int priority, FlowMatch m) {
        return tablePriority[slot] == (table << 16 | priority) && matchHash[slot] == m.hashCode()
                && arena.holds(match[slot], m);
    }

    long id(int slot) {
        return id[slot];
    }

    int table(int slot) {
        return tablePriority[slot] >>> 16;
    }

    int priority(int slot) {
        return tablePriority[slot] & 0xffff;
    }

    long cookie(int slot) {
        return cookie[slot];
    }

    int next(int slot) {
        return next[slot];
    }

    void setNext(int slot, int to) {
        next[slot] = to;
    }

    int prev(int slot) {
        return prev[slot];
    }

    void setPrev(int slot, int to) {
        prev[slot] = to;
    }

    private void grow(int capacity) {
        id = Arrays.copyOf(id, capacity);
        cookie = Arrays.copyOf(cookie, capacity);
        installed = Arrays.copyOf(installed, capacity);
        tablePriority = Arrays.copyOf(tablePriority, capacity);
        timeouts = Arrays.copyOf(timeouts, capacity);
        flags = Arrays.copyOf(flags, capacity);
        match = Arrays.copyOf(match, capacity);
        matchHash = Arrays.copyOf(matchHash, capacity);
        instructions = Arrays.copyOf(instructions, capacity);
        next = Arrays.copyOf(next, capacity);
        prev = Arrays.copyOf(prev, capacity);
    }

    private static int flagBits(Set<OFFlowModFlags> set) {
        int bits = 0;
        for (OFFlowModFlags f : set) {
            bits |= 1 << f.ordinal();
        }
        return bits;
    }

    private static Set<OFFlowModFlags> flagSet(int bits) {
        if (bits == 0) {
            return Set.of();
        }
        Set<OFFlowModFlags> set = EnumSet.noneOf(OFFlowModFlags.class);
        for (OFFlowModFlags f : FLAGS) {
            if ((bits & 1 << f.ordinal()) != 0) {
                set.add(f);
            }
        }
        return set;
    }
}
