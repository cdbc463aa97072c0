package org.uno.oneswitch.translate;

import java.util.Objects;

import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.FlowMatch;

/**
 * Where in the virtual switch a physical rule's packets come from, as far as a packet arriving on a
 * link port is concerned.
 *
 * <p>A packet that crosses a PCIe link loses its virtual ingress port, the virtual table it was in
 * and its pipeline metadata; the rule that receives it on the far switch only sees headers. Two
 * such rules may share a link port only if their origins are {@link #compatible compatible} (the
 * far switch then decides exactly as the virtual switch would) or if they do the same thing.
 */
public final class Origin {
    /** What kind of rule this origin belongs to. */
    public enum Kind {
        /** A rule matching a local in_port: never sees link arrivals. */
        LOCAL,
        /** A rule without in_port, installed on every switch (it also sees link arrivals in table 0). */
        ANY_PORT,
        /** A rule on a link port, carrying packets of one virtual ingress port and table. */
        LINK
    }

    /** The origin of rules that match a local port. */
    public static final Origin LOCAL = new Origin(Kind.LOCAL, null, -1, FlowMatch.ANY);

    private final Kind kind;
    private final OFPort virtualIngress;
    private final int table;
    private final FlowMatch pipelineMatch;

    private Origin(Kind kind, OFPort virtualIngress, int table, FlowMatch pipelineMatch) {
        this.kind = kind;
        this.virtualIngress = virtualIngress;
        this.table = table;
        this.pipelineMatch = pipelineMatch;
    }

    /** The origin of a rule without in_port in virtual table {@code table}. */
    public static Origin anyPort(int table) {
        return new Origin(Kind.ANY_PORT, null, table, FlowMatch.ANY);
    }

    /**
     * The origin of a link-port rule carrying packets that entered at virtual port
     * {@code virtualIngress} and were in virtual table {@code table} with pipeline fields
     * {@code pipelineMatch} (metadata) that the link rule cannot match any more.
     */
    public static Origin link(OFPort virtualIngress, int table, FlowMatch pipelineMatch) {
        return new Origin(Kind.LINK, Objects.requireNonNull(virtualIngress), table, pipelineMatch);
    }

    public Kind kind() {
        return kind;
    }

    /** True when rules of this origin can match packets arriving on a link port. */
    public boolean seesLinkArrivals() {
        return kind == Kind.LINK || (kind == Kind.ANY_PORT && table == 0);
    }

    /**
     * True when a far switch may mix rules of both origins on one link port: a packet that one
     * rule was meant for would have been decided the same way on the virtual switch by the other.
     */
    public boolean compatible(Origin o) {
        if (equals(o)) {
            return true;
        }
        Origin link = kind == Kind.LINK ? this : o;
        Origin any = kind == Kind.ANY_PORT ? this : o;
        return link.kind == Kind.LINK && any.kind == Kind.ANY_PORT && any.table == 0
                && link.table == 0 && link.pipelineMatch.equals(FlowMatch.ANY);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Origin x && kind == x.kind && table == x.table
                && Objects.equals(virtualIngress, x.virtualIngress) && pipelineMatch.equals(x.pipelineMatch);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, virtualIngress, table, pipelineMatch);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case LOCAL -> "local";
            case ANY_PORT -> "any-port@table" + table;
            case LINK -> "from-virtual-port-" + virtualIngress + "@table" + table
                    + (pipelineMatch.equals(FlowMatch.ANY) ? "" : "," + pipelineMatch);
        };
    }
}
