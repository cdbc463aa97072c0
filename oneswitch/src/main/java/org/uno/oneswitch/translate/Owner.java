package org.uno.oneswitch.translate;

import java.util.Objects;

/**
 * Who needs a physical entry: a virtual rule, a virtual group, OneSwitch's infrastructure, or a
 * retirement (entries of an earlier translation kept for a grace period after a remap).
 */
public record Owner(Kind kind, long id) {
    /** The kinds of owners. */
    public enum Kind {
        RULE, GROUP, INFRASTRUCTURE, RETIRED
    }

    /** The owner of the dispatch table's fixed entries. */
    public static final Owner INFRASTRUCTURE = new Owner(Kind.INFRASTRUCTURE, 0);

    public Owner {
        Objects.requireNonNull(kind, "kind");
    }

    public static Owner rule(long id) {
        return new Owner(Kind.RULE, id);
    }

    public static Owner group(long id) {
        return new Owner(Kind.GROUP, id);
    }

    public static Owner retired(long generation) {
        return new Owner(Kind.RETIRED, generation);
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase() + "#" + Long.toUnsignedString(id);
    }
}
