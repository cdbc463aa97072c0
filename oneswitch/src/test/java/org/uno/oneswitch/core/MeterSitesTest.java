package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;
import static org.uno.oneswitch.testing.Fixtures.rule;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.testing.Fixtures;

/** Where metered rules' packets enter: V1, V2 on the host, V3 on snic0 (Fixtures.ports(1)). */
class MeterSitesTest {
    private final PortMap ports = Fixtures.ports(1);
    private final MeterSites sites = new MeterSites();

    private static VirtualRule metered(long id, FlowMatch m, long meter) {
        List<Instruction> ins = new ArrayList<>(List.of(new Instruction.Meter(meter)));
        ins.addAll(apply(out(2)));
        return rule(id, 10, m, ins);
    }

    @Test
    void aMeterIsSplitWhileItsRulesEnterOnTwoSwitches() {
        VirtualRule host = metered(1, match(inPort(1)), 5);
        VirtualRule snic = metered(2, match(inPort(3)), 5);
        sites.recount(ports, List.of(host, metered(3, match(inPort(2)), 5), metered(4, match(inPort(3)), 6)));
        assertFalse(sites.anySplit(), "meter 5 on the host only, meter 6 on the sNIC only");
        assertTrue(sites.anySplitAfter(List.of(), List.of(snic)));
        assertFalse(sites.anySplit(), "asking changes nothing");
        sites.add(snic);
        assertTrue(sites.anySplit());
        assertFalse(sites.anySplitAfter(List.of(snic), List.of()));
        sites.remove(snic);
        assertFalse(sites.anySplit());
    }

    @Test
    void aRuleWithoutInPortEntersEverywhereAndAnUnmappedPortNowhere() {
        VirtualRule anywhere = metered(1, FlowMatch.ANY, 5);
        sites.recount(ports, List.of(anywhere));
        assertTrue(sites.anySplit(), "two switches have virtual ports");
        sites.recount(PortMap.of(List.of(Fixtures.map(1, "host", 2, "vm0"))), List.of(anywhere,
                metered(2, match(inPort(3)), 5)));
        assertFalse(sites.anySplit(), "one switch has virtual ports; V3's rule enters nowhere");
        assertTrue(sites.isFor(PortMap.of(List.of(Fixtures.map(1, "host", 2, "vm0"))).withPipelineHome("host")),
                "the counts are for the mappings, whatever the pipeline home");
        assertFalse(sites.isFor(ports));
        assertFalse(sites.anySplitAfter(List.of(), List.of(metered(3, FlowMatch.ANY, 6))));
    }
}
