package org.uno.oneswitch.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BiConsumer;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.plan.PhysicalKey;

/**
 * The physical flow entries OneSwitch plans, by key (switch, table, priority, match) and by cookie,
 * kept in columns as the virtual rules are ({@link RuleColumns}): an entry is a slot, its fields
 * primitive arrays, its match bytes in a {@link MatchArena}, its instruction list the one the
 * interner shares. A stored entry is thus no object for the collector to copy; what is read is made
 * from the columns, equal to what was stored.
 *
 * <p>Invariant: at most one entry per key and per cookie; a slot is in use exactly while its
 * instructions are not null.
 */
public final class PhysicalFlowTable {
    /** What a planned entry is, besides its key. */
    public record Content(List<Instruction> instructions, long cookie, int tag) {
        public U64 u64() {
            return U64.of(cookie);
        }
    }

    private static final int NONE = SlotIndex.NONE;

    /** The switches' ids, by the index the entries keep (a host and a few sNICs). */
    private final List<String> switches = new ArrayList<>();
    private int[] switchIndex = new int[Slots.FIRST_CAPACITY];
    private int[] tablePriority = new int[Slots.FIRST_CAPACITY];   // table << 16 | priority
    private int[] match = new int[Slots.FIRST_CAPACITY];
    private int[] matchHash = new int[Slots.FIRST_CAPACITY];
    private Object[] instructions = new Object[Slots.FIRST_CAPACITY];
    private long[] cookie = new long[Slots.FIRST_CAPACITY];
    private int[] tag = new int[Slots.FIRST_CAPACITY];
    /* who holds each entry, the planner's business: an object, or, in the usual case, an id and a small code */
    private Object[] owners = new Object[Slots.FIRST_CAPACITY];
    private long[] ownerId = new long[Slots.FIRST_CAPACITY];
    private int[] ownerCode = new int[Slots.FIRST_CAPACITY];
    private final Slots slots = new Slots();
    private MatchArena arena = new MatchArena();
    /** Slots by their key's hash (several keys may share one). */
    private final SlotIndex byHash = new SlotIndex();
    private final SlotIndex byCookie = new SlotIndex();
    /* the key last found or made and its slot: a change looks its entries' keys up several times each */
    private PhysicalKey lastKey;
    private int lastSlot;

    /** How many entries there are. */
    public int size() {
        return byCookie.size();
    }

    /** The entry {@code key}, or null. */
    public Content get(PhysicalKey key) {
        int slot = find(key);
        return slot == NONE ? null : contentAt(slot);
    }

    /** The slot of the entry {@code key} (stable while the entry is there), or -1. */
    public int slotOf(PhysicalKey key) {
        return find(key);
    }

    /** Who holds the entry in {@code slot} when kept as an object, else null. */
    public Object owners(int slot) {
        return owners[slot];
    }

    /** Who holds the entry in {@code slot} when kept as an id and a code (0: not so). */
    public long ownerId(int slot) {
        return ownerId[slot];
    }

    /** The code that goes with {@link #ownerId}, 0 when the owners are not kept so. */
    public int ownerCode(int slot) {
        return ownerCode[slot];
    }

    /** Sets who holds the entry in {@code slot}: an object, or an id and a nonzero code (or neither). */
    public void setOwners(int slot, Object o, long id, int code) {
        owners[slot] = o;
        ownerId[slot] = id;
        ownerCode[slot] = code;
    }

    /** The key of the entry with {@code cookie}, or null. */
    public PhysicalKey keyOf(long cookieValue) {
        int slot = byCookie.first(cookieValue);
        return slot == NONE ? null : keyAt(slot);
    }

    /** Whether an entry has {@code cookie}. */
    public boolean hasCookie(long cookieValue) {
        return byCookie.first(cookieValue) != NONE;
    }

    /** The slot of the entry with {@code cookie}, or -1. */
    public int slotOfCookie(long cookieValue) {
        return byCookie.first(cookieValue);
    }

    /** Sets the entry {@code key} to {@code next} (null removes it); returns what it was, or null. */
    public Content put(PhysicalKey key, Content next) {
        int slot = find(key);
        Content prev = slot == NONE ? null : contentAt(slot);
        if (prev != null) {
            byCookie.remove(slot);
        }
        if (next == null) {
            if (slot != NONE) {
                remove(slot);
            }
            return prev;
        }
        if (slot == NONE) {
            slot = add(key);
        }
        instructions[slot] = next.instructions();
        cookie[slot] = next.cookie();
        tag[slot] = next.tag();
        byCookie.add(slot, next.cookie());
        return prev;
    }

    /** Every entry on {@code switchId}: key and content. */
    public void forEachOn(String switchId, BiConsumer<PhysicalKey, Content> action) {
        int sw = switches.indexOf(switchId);
        for (int s = 0; sw >= 0 && s < slots.highWater(); s++) {
            if (instructions[s] != null && switchIndex[s] == sw) {
                action.accept(keyAt(s), contentAt(s));
            }
        }
    }

    /** The hash an entry is filed under: of its switch's index, table << 16 | priority and match's hash. */
    static long keyHash(int sw, int tp, int mh) {
        return 31L * (31L * sw + tp) + mh;
    }

    private int find(PhysicalKey key) {
        if (key == lastKey) {
            return lastSlot;
        }
        int slot = search(key);
        lastKey = key;
        lastSlot = slot;
        return slot;
    }

    private int search(PhysicalKey key) {
        int sw = switches.indexOf(key.switchId());
        if (sw < 0) {
            return NONE;
        }
        int tp = key.table() << 16 | key.priority();
        int mh = key.match().hashCode();
        long hash = keyHash(sw, tp, mh);
        for (int s = byHash.first(hash); s != NONE; s = byHash.next(s)) {
            if (switchIndex[s] == sw && tablePriority[s] == tp && matchHash[s] == mh && arena.holds(match[s], key.match())) {
                return s;
            }
        }
        return NONE;
    }

    private int add(PhysicalKey key) {
        lastKey = null;
        int sw = switches.indexOf(key.switchId());
        if (sw < 0) {
            sw = switches.size();
            switches.add(key.switchId());
        }
        int slot = slots.allocate();
        if (slot == instructions.length) {
            grow(Slots.capacityAfter(slot));
        }
        FlowMatch m = key.match();
        switchIndex[slot] = sw;
        tablePriority[slot] = key.table() << 16 | key.priority();
        match[slot] = arena.add(m);
        matchHash[slot] = m.hashCode();
        byHash.add(slot, keyHash(sw, tablePriority[slot], matchHash[slot]));
        return slot;
    }

    private void remove(int slot) {
        lastKey = null;
        byHash.remove(slot);
        arena.free(match[slot]);
        instructions[slot] = null;
        setOwners(slot, null, 0, 0);
        slots.release(slot);
        if (arena.wasteful()) {
            arena = arena.compacted(match, instructions, slots.highWater());
        }
    }

    /** The key of the entry in {@code slot}, made from its columns. */
    public PhysicalKey keyAt(int slot) {
        PhysicalKey key = new PhysicalKey(switches.get(switchIndex[slot]), tablePriority[slot] >>> 16,
                tablePriority[slot] & 0xffff, arena.get(match[slot]));
        // a key made here is what the caller looks up next (its content, its owners): found without a search
        lastKey = key;
        lastSlot = slot;
        return key;
    }

    /** The content of the entry in {@code slot}. */
    @SuppressWarnings("unchecked")
    public Content contentAt(int slot) {
        return new Content((List<Instruction>) instructions[slot], cookie[slot], tag[slot]);
    }

    private void grow(int capacity) {
        switchIndex = Arrays.copyOf(switchIndex, capacity);
        tablePriority = Arrays.copyOf(tablePriority, capacity);
        match = Arrays.copyOf(match, capacity);
        matchHash = Arrays.copyOf(matchHash, capacity);
        instructions = Arrays.copyOf(instructions, capacity);
        cookie = Arrays.copyOf(cookie, capacity);
        tag = Arrays.copyOf(tag, capacity);
        owners = Arrays.copyOf(owners, capacity);
        ownerId = Arrays.copyOf(ownerId, capacity);
        ownerCode = Arrays.copyOf(ownerCode, capacity);
    }
}
