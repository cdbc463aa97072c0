package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.ipv4;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.FlowModFailedException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.store.VirtualFlowTable;

/** OpenFlow 1.3 flow_mod semantics on the virtual table. */
class FlowModPlannerTest {
    private final VirtualFlowTable table = new VirtualFlowTable();

    private static FlowModRequest req(FlowModRequest.Command cmd, int tableId, int prio, FlowMatch m, long cookie,
                                      long mask, OFPort outPort, List<Instruction> ins, OFFlowModFlags... flags) {
        return new FlowModRequest(cmd, new FlowFilter(tableId, m, cmd.isStrict() || cmd == FlowModRequest.Command.ADD,
                prio, U64.of(cookie), U64.of(mask), outPort, OFGroup.ANY), ins, U64.of(cookie), Set.of(flags), 0, 0);
    }

    private void run(FlowModRequest r) throws FlowModFailedException {
        TableChange c = FlowModPlanner.plan(table, r, 0, table::newId);
        c.upserts().forEach(table::put);
        c.removals().forEach(x -> table.remove(x.id()));
    }

    private void add(int prio, FlowMatch m, long cookie, int port) throws FlowModFailedException {
        run(req(FlowModRequest.Command.ADD, 0, prio, m, cookie, 0, OFPort.ANY, apply(out(port))));
    }

    @Test
    void addWithSameKeyReplacesAndKeepsTheId() throws Exception {
        add(10, match(inPort(1)), 1, 2);
        long id = table.all().iterator().next().id();
        add(10, match(inPort(1)), 2, 3);
        assertEquals(1, table.size());
        VirtualRule r = table.all().iterator().next();
        assertEquals(id, r.id());
        assertEquals(U64.of(2), r.cookie());
    }

    @Test
    void checkOverlapRefusesAnOverlappingRuleOfTheSamePriority() throws Exception {
        add(10, match(inPort(1)), 1, 2);
        FlowModFailedException e = assertThrows(FlowModFailedException.class, () -> run(req(
                FlowModRequest.Command.ADD, 0, 10, match(ipv4()), 0, 0, OFPort.ANY, apply(), OFFlowModFlags.CHECK_OVERLAP)));
        assertEquals(OFFlowModFailedCode.OVERLAP, e.code());
        run(req(FlowModRequest.Command.ADD, 0, 11, match(ipv4()), 0, 0, OFPort.ANY, apply(), OFFlowModFlags.CHECK_OVERLAP));
    }

    @Test
    void modifyChangesOnlyInstructionsOfSelectedRules() throws Exception {
        add(10, match(inPort(1), ipv4()), 0x11, 2);
        add(20, match(inPort(2)), 0x21, 2);
        run(req(FlowModRequest.Command.MODIFY, 0, 0, match(inPort(1)), 0x10, 0xf0, OFPort.ANY, apply(out(3))));
        for (VirtualRule r : table.all()) {
            int expected = r.priority() == 10 ? 3 : 2;
            assertEquals(apply(out(expected)), r.instructions());
        }
        run(req(FlowModRequest.Command.MODIFY_STRICT, 0, 20, match(inPort(1)), 0, 0, OFPort.ANY, apply(out(9))));
        assertEquals(2, table.size(), "strict modify with no exact match changes nothing and adds nothing");
    }

    @Test
    void deleteHonoursTableCookieAndOutPortFilters() throws Exception {
        add(10, match(inPort(1)), 0x1, 2);
        add(11, match(inPort(1)), 0x2, 3);
        add(12, match(inPort(2)), 0x1, 3);
        run(req(FlowModRequest.Command.DELETE, FlowFilter.ALL_TABLES, 0, FlowMatch.ANY, 0x1, 0xff, OFPort.of(3), List.of()));
        assertEquals(2, table.size());
        run(req(FlowModRequest.Command.DELETE_STRICT, 0, 10, match(inPort(1)), 0, 0, OFPort.ANY, List.of()));
        assertEquals(1, table.size());
        run(req(FlowModRequest.Command.DELETE, FlowFilter.ALL_TABLES, 0, FlowMatch.ANY, 0, 0, OFPort.ANY, List.of()));
        assertEquals(0, table.size());
    }
}
