package org.uno.oneswitch.model;

import java.util.Objects;

import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;

/**
 * Which flow entries a flow_mod (modify/delete) or a FLOW/AGGREGATE stats request is about, with
 * OpenFlow 1.3's selection rules: table (or all), cookie under mask, match (strict: same priority
 * and match; non-strict: the entry's match is at least as specific), out_port and out_group.
 */
public record FlowFilter(int table, FlowMatch match, boolean strict, int priority, U64 cookie, U64 cookieMask,
                         OFPort outPort, OFGroup outGroup) {
    /** The table number meaning "all tables". */
    public static final int ALL_TABLES = 0xff;

    public FlowFilter {
        Objects.requireNonNull(match, "match");
        Objects.requireNonNull(cookie, "cookie");
        Objects.requireNonNull(cookieMask, "cookieMask");
        Objects.requireNonNull(outPort, "outPort");
        Objects.requireNonNull(outGroup, "outGroup");
    }

    /** A filter selecting every entry in every table. */
    public static FlowFilter all() {
        return new FlowFilter(ALL_TABLES, FlowMatch.ANY, false, 0, U64.ZERO, U64.ZERO, OFPort.ANY, OFGroup.ANY);
    }

    /** True when {@code r} is selected. */
    public boolean selects(VirtualRule r) {
        if (table != ALL_TABLES && r.table() != table) {
            return false;
        }
        if (!r.cookie().and(cookieMask).equals(cookie.and(cookieMask))) {
            return false;
        }
        if (strict ? r.priority() != priority || !r.match().equals(match) : !match.covers(r.match())) {
            return false;
        }
        return (outPort.equals(OFPort.ANY) || outputsTo(r, outPort))
                && (outGroup.equals(OFGroup.ANY) || usesGroup(r, outGroup));
    }

    private static boolean outputsTo(VirtualRule r, OFPort port) {
        return actions(r).anyMatch(a -> a instanceof Action.Output o && o.port().equals(port));
    }

    private static boolean usesGroup(VirtualRule r, OFGroup group) {
        return actions(r).anyMatch(a -> a instanceof Action.Group g && g.group().equals(group));
    }

    private static java.util.stream.Stream<Action> actions(VirtualRule r) {
        return r.instructions().stream().flatMap(i -> Instruction.actionsOf(i).stream());
    }
}
