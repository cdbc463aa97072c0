package org.uno.oneswitch.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.uno.oneswitch.testing.Fixtures.OF13;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFPort;

class InternerTest {
    @Test
    void equalValuesShareOneInstanceUpToTheCapacity() {
        Interner<List<Integer>> interner = new Interner<>(2);
        List<Integer> a = List.of(1);
        assertSame(a, interner.intern(a));
        assertSame(a, interner.intern(List.of(1)));
        List<Integer> b = List.of(2);
        assertSame(b, interner.intern(b));
        List<Integer> c = List.of(3);
        assertSame(c, interner.intern(c), "full: a new value is returned as it is");
        assertSame(c, interner.intern(c));
        List<Integer> c2 = List.of(3);
        assertSame(c2, interner.intern(c2), "and not kept");
        assertSame(a, interner.intern(List.of(1)), "kept values are still shared");
    }

    @Test
    void rulesWithEqualInstructionsAndInPortsKeepOneCopy() {
        List<Instruction> out2 = List.of(new Instruction.ApplyActions(List.of(new Action.Output(OFPort.of(2), 0xffff))));
        VirtualRule r1 = rule(1, out2);
        VirtualRule r2 = rule(2, List.of(new Instruction.ApplyActions(List.of(new Action.Output(OFPort.of(2), 0xffff)))));
        assertEquals(r1.instructions(), r2.instructions());
        assertSame(r1.instructions(), r2.instructions());
        assertSame(r1.match().oxms().get(0), r2.match().oxms().get(0));
    }

    private static VirtualRule rule(long n, List<Instruction> instructions) {
        return VirtualRule.builder().id(n).priority(1)
                .match(match(inPort(1), OF13.oxms().ethDst(MacAddress.of(n))))
                .instructions(instructions).build();
    }
}
