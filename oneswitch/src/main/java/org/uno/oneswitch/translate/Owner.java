package org.uno.oneswitch.translate;

import java.util.Objects;

/**
 * Who needs a physical entry: a virtual rule, a virtual group, OneSwitch's infrastructure, NORMAL's
 * tables (while a rule or group outputs to NORMAL), or a retirement (entries of an earlier
 * translation kept for a grace period after a remap).
 */
public record Owner(Kind kind, long id) {
    /** The kinds of owners. */
    public enum Kind {
        RULE, GROUP, INFRASTRUCTURE, NORMAL, RETIRED
    }

    /** The owner of the dispatch table's fixed entries. */
    public static final Owner INFRASTRUCTURE = new Owner(Kind.INFRASTRUCTURE, 0);
    /** The owner of NORMAL's tables and groups on every switch (see {@code NormalPipeline}). */
    public static final Owner NORMAL = new Owner(Kind.NORMAL, 0);

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
