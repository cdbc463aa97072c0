package org.uno.oneswitch.model;

import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.types.U64;

/**
 * A flow entry of the virtual switch, as the controller installed it (ports are virtual).
 *
 * <p>Invariant: table in 0..254, priority and timeouts in 0..65535, instructions immutable; the id
 * is OneSwitch's own and stays the same when an ADD replaces the entry with the same key.
 */
public final class VirtualRule {
    private final long id;
    // the key's parts kept flat (a RuleKey here would be one more object per rule for the collector to copy)
    private final int table;
    private final int priority;
    private final FlowMatch match;
    private final List<Instruction> instructions;
    private final long cookie;  // a U64 per rule costs an object; made on the (rare) read
    private final Set<OFFlowModFlags> flags;
    private final int idleTimeout;
    private final int hardTimeout;
    private final long installedNanos;

    private VirtualRule(Builder b) {
        this.id = b.id;
        this.table = b.table;
        this.priority = b.priority;
        this.match = b.match;
        this.instructions = InstructionLists.of(b.instructions);
        this.cookie = b.cookie.getValue();
        this.flags = b.flags.isEmpty() ? Set.of() : Set.copyOf(b.flags);
        this.idleTimeout = b.idleTimeout;
        this.hardTimeout = b.hardTimeout;
        this.installedNanos = b.installedNanos;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder pre-filled with this rule's fields. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.id = id;
        b.table = table;
        b.priority = priority;
        b.match = match;
        b.instructions = instructions;
        b.cookie = U64.of(cookie);
        b.flags = flags.isEmpty() ? EnumSet.noneOf(OFFlowModFlags.class) : EnumSet.copyOf(flags);
        b.idleTimeout = idleTimeout;
        b.hardTimeout = hardTimeout;
        b.installedNanos = installedNanos;
        return b;
    }

    public long id() {
        return id;
    }

    /** Table, priority and match (made when asked). */
    public RuleKey key() {
        return new RuleKey(table, priority, match);
    }

    /** Whether this rule's key is {@code other}'s. */
    public boolean sameKey(VirtualRule other) {
        return table == other.table && priority == other.priority && match.equals(other.match);
    }

    public int table() {
        return table;
    }

    public int priority() {
        return priority;
    }

    public FlowMatch match() {
        return match;
    }

    public List<Instruction> instructions() {
        return instructions;
    }

    public U64 cookie() {
        return U64.of(cookie);
    }

    public Set<OFFlowModFlags> flags() {
        return flags;
    }

    public boolean hasFlag(OFFlowModFlags flag) {
        return flags.contains(flag);
    }

    public int idleTimeout() {
        return idleTimeout;
    }

    public int hardTimeout() {
        return hardTimeout;
    }

    /** When the entry was installed (or replaced), on the monotonic clock in nanoseconds. */
    public long installedNanos() {
        return installedNanos;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VirtualRule r && id == r.id && sameKey(r)
                && instructions.equals(r.instructions) && cookie == r.cookie && flags.equals(r.flags)
                && idleTimeout == r.idleTimeout && hardTimeout == r.hardTimeout
                && installedNanos == r.installedNanos;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, key(), instructions, cookie);
    }

    @Override
    public String toString() {
        return "vrule#" + id + "{" + key() + ",cookie=" + cookie() + ",instructions=" + instructions + "}";
    }

    /** Validating builder of {@link VirtualRule}. */
    public static final class Builder {
        private long id;
        private int table;
        private int priority = 0x8000;
        private FlowMatch match = FlowMatch.ANY;
        private List<Instruction> instructions = List.of();
        private U64 cookie = U64.ZERO;
        private Set<OFFlowModFlags> flags = EnumSet.noneOf(OFFlowModFlags.class);
        private int idleTimeout;
        private int hardTimeout;
        private long installedNanos;

        private Builder() {
        }

        public Builder id(long v) {
            id = v;
            return this;
        }

        public Builder table(int v) {
            table = v;
            return this;
        }

        public Builder priority(int v) {
            priority = v;
            return this;
        }

        public Builder match(FlowMatch v) {
            match = Objects.requireNonNull(v, "match");
            return this;
        }

        public Builder instructions(List<Instruction> v) {
            instructions = Objects.requireNonNull(v, "instructions");
            return this;
        }

        public Builder cookie(U64 v) {
            cookie = Objects.requireNonNull(v, "cookie");
            return this;
        }

        public Builder flags(Set<OFFlowModFlags> v) {
            flags = v.isEmpty() ? EnumSet.noneOf(OFFlowModFlags.class) : EnumSet.copyOf(v);
            return this;
        }

        public Builder idleTimeout(int v) {
            idleTimeout = v;
            return this;
        }

        public Builder hardTimeout(int v) {
            hardTimeout = v;
            return this;
        }

        public Builder installedNanos(long v) {
            installedNanos = v;
            return this;
        }

        /** Builds the rule; throws IllegalArgumentException on out-of-range fields. */
        public VirtualRule build() {
            check(table, 254, "table");
            check(priority, 0xffff, "priority");
            check(idleTimeout, 0xffff, "idle_timeout");
            check(hardTimeout, 0xffff, "hard_timeout");
            return new VirtualRule(this);
        }

        private static void check(int value, int max, String what) {
            if (value < 0 || value > max) {
                throw new IllegalArgumentException(what + " out of range: " + value);
            }
        }
    }
}
