package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;

import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.uno.oneswitch.error.FlowModFailedException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.store.VirtualFlowTable;

/**
 * OpenFlow 1.3 flow_mod semantics on the virtual tables (spec §6.4), as a pure decision: which
 * rules an ADD, MODIFY(_STRICT) or DELETE(_STRICT) stores or removes. Nothing is changed here.
 */
public final class FlowModPlanner {
    private FlowModPlanner() {
    }

    /**
     * The change {@code req} makes to {@code table} at time {@code nowNanos}; {@code newId} gives
     * ids for new rules. Throws OVERLAP for an ADD with CHECK_OVERLAP that overlaps a rule of the
     * same priority.
     */
    public static TableChange plan(VirtualFlowTable table, FlowModRequest req, long nowNanos, LongSupplier newId)
            throws FlowModFailedException {
        FlowFilter f = req.filter();
        switch (req.command()) {
            case ADD:
                Optional<VirtualRule> same = table.get(new org.uno.oneswitch.model.RuleKey(f.table(), f.priority(),
                        f.match()));
                if (req.flags().contains(OFFlowModFlags.CHECK_OVERLAP)) {
                    checkOverlap(table, req);
                }
                long id = same.map(VirtualRule::id).orElseGet(newId::getAsLong);
                return new TableChange(List.of(req.newRule(id, nowNanos)), List.of());
            case MODIFY:
            case MODIFY_STRICT:
                List<VirtualRule> modified = new ArrayList<>();
                for (VirtualRule r : table.select(f)) {
                    modified.add(r.toBuilder().instructions(req.instructions()).build());
                }
                return new TableChange(modified, List.of());
            default:
                return new TableChange(List.of(), table.select(f));
        }
    }

    private static void checkOverlap(VirtualFlowTable table, FlowModRequest req) throws FlowModFailedException {
        FlowFilter f = req.filter();
        for (VirtualRule r : table.at(f.table(), f.priority())) {
            if (r.match().overlaps(f.match())) {
                throw new FlowModFailedException(OFFlowModFailedCode.OVERLAP, "overlaps " + r);
            }
        }
    }
}
