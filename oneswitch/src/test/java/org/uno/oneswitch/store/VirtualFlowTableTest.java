package org.uno.oneswitch.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.OF13;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.ethDst;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.ipv4Src;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;
import static org.uno.oneswitch.testing.Fixtures.vlan;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.VirtualRule;

/**
 * The flow tables: rules kept in columns read back equal, by key (filed by the key's hash) and by id, in
 * installation order, also after the match pages are compacted.
 */
class VirtualFlowTableTest {
    private final VirtualFlowTable table = new VirtualFlowTable();
    private final FlowMatch m = match(inPort(1));

    private VirtualRule rule(int tableId, int priority) {
        return VirtualRule.builder().id(table.newId()).table(tableId).priority(priority).match(m).build();
    }

    /** Two keys of the same match filed under one hash: table 1 at some priority against table 0 at another. */
    private RuleKey[] collidingKeys() {
        RuleKey a = new RuleKey(1, 0, m);
        for (int p = 0; p < 0x10000; p++) {
            RuleKey b = new RuleKey(0, p, m);
            if (VirtualFlowTable.keyHash(0, p, m) == VirtualFlowTable.keyHash(1, 0, m)) {
                return new RuleKey[] {a, b};
            }
        }
        throw new AssertionError("no two keys with one hash among 65,536 priorities");
    }

    @Test
    void keysWithOneHashAreKeptApartFoundAndRemovedOneByOne() {
        RuleKey[] keys = collidingKeys();
        assertNotEquals(keys[0], keys[1]);
        VirtualRule a = rule(keys[0].table(), keys[0].priority());
        VirtualRule b = rule(keys[1].table(), keys[1].priority());
        VirtualRule c = rule(2, 7);
        table.put(a);
        table.put(b);
        table.put(c);
        assertEquals(a, table.get(keys[0]).orElseThrow());
        assertEquals(b, table.get(keys[1]).orElseThrow());
        assertEquals(3, table.size());
        // the same key again, a new id: it replaces the old rule, which goes (and so does its place in the order)
        VirtualRule a2 = rule(keys[0].table(), keys[0].priority());
        table.put(a2);
        assertEquals(a2, table.get(keys[0]).orElseThrow());
        assertTrue(table.byId(a.id()).isEmpty());
        assertEquals(List.of(b, c, a2), List.copyOf(table.all()));
        table.remove(b.id());
        assertTrue(table.get(keys[1]).isEmpty());
        assertEquals(a2, table.get(keys[0]).orElseThrow());
        assertEquals(2, table.size());
    }

    @Test
    void aReplacementWithTheSameIdAndKeyKeepsItsPlace() {
        VirtualRule a = rule(0, 1);
        VirtualRule b = rule(0, 2);
        table.put(a);
        table.put(b);
        VirtualRule a2 = a.toBuilder().hardTimeout(9).build();
        table.put(a2);
        assertEquals(List.of(a2, b), List.copyOf(table.all()));
        assertEquals(a2, table.get(a.key()).orElseThrow());
    }

    @Test
    void aRuleReadsBackEqualFieldByField() {
        VirtualRule r = VirtualRule.builder().id(table.newId()).table(3).priority(0xffff)
                .match(match(inPort(7), ethDst("02:00:00:00:00:09"), ipv4Src("10.0.0.1"), vlan(5),
                        OF13.oxms().buildEthSrcMasked().setValue(MacAddress.of("02:00:00:00:00:00"))
                                .setMask(MacAddress.of("ff:ff:00:00:00:00")).build()))
                .instructions(apply(out(2))).cookie(U64.of(-7L))
                .flags(Set.of(OFFlowModFlags.SEND_FLOW_REM, OFFlowModFlags.NO_BYT_COUNTS))
                .idleTimeout(0xffff).hardTimeout(1).installedNanos(-123456789L).build();
        table.put(r);
        VirtualRule back = table.byId(r.id()).orElseThrow();
        assertEquals(r, back);
        assertEquals(r.match(), back.match());
        assertEquals(r.flags(), back.flags());
        assertEquals(r.cookie(), back.cookie());
        assertEquals(List.of(r), table.at(3, 0xffff));
        assertEquals(List.of(), table.at(3, 0xfffe));
    }

    @Test
    void rulesStayReadableWhileMostAreRemovedAndTheirMatchPagesCompacted() {
        List<VirtualRule> rules = new ArrayList<>();
        for (int i = 0; i < 30_000; i++) {
            VirtualRule r = VirtualRule.builder().id(table.newId()).priority(i % 7)
                    .match(match(inPort(1 + i % 3), ethDst(String.format("02:00:00:%02x:%02x:%02x", i >> 16, (i >> 8) & 0xff, i & 0xff))))
                    .cookie(U64.of(i)).build();
            rules.add(r);
            table.put(r);
        }
        List<VirtualRule> kept = new ArrayList<>();
        for (VirtualRule r : rules) {
            if (r.cookie().getValue() % 10 == 0) {
                kept.add(r);
            } else {
                table.remove(r.id());
            }
        }
        assertEquals(kept, List.copyOf(table.all()));
        for (VirtualRule r : kept) {
            assertEquals(r, table.get(r.key()).orElseThrow());
        }
        // freed slots are reused: more rules, and every one is found by id and by key
        VirtualRule more = VirtualRule.builder().id(table.newId()).match(match(inPort(9))).cookie(U64.of(1)).build();
        table.put(more);
        assertEquals(more, table.get(more.key()).orElseThrow());
        assertEquals(kept.size() + 1, table.size());
        assertEquals(List.of(kept.get(0)),
                table.select(new FlowFilter(FlowFilter.ALL_TABLES, FlowMatch.ANY, false, 0, U64.ZERO, U64.of(-1),
                        OFPort.ANY, OFGroup.ANY)));
    }
}
