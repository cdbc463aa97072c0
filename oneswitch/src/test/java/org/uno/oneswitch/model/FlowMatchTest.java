package org.uno.oneswitch.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.OF13;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.ipv4;
import static org.uno.oneswitch.testing.Fixtures.ipv4Src;
import static org.uno.oneswitch.testing.Fixtures.match;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.IPv4Address;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFPort;

class FlowMatchTest {
    private static FlowMatch prefix(String ip, String mask) {
        return match(ipv4(), OF13.oxms().ipv4SrcMasked(IPv4Address.of(ip), IPv4Address.of(mask)));
    }

    @Test
    void canonicalFormMakesEquivalentEncodingsEqual() {
        FlowMatch exact = match(ipv4(), ipv4Src("10.0.0.1"));
        assertEquals(exact, prefix("10.0.0.1", "255.255.255.255"));
        assertEquals(match(ipv4()), prefix("0.0.0.0", "0.0.0.0"));
        assertEquals(match(ipv4(), inPort(2)), match(inPort(2), ipv4()));
    }

    @Test
    void coversFollowsNonStrictSemantics() {
        assertTrue(FlowMatch.ANY.covers(match(inPort(1))));
        assertTrue(prefix("10.0.0.0", "255.0.0.0").covers(match(ipv4(), ipv4Src("10.1.2.3"))));
        assertTrue(prefix("10.0.0.0", "255.0.0.0").covers(prefix("10.1.0.0", "255.255.0.0")));
        assertFalse(prefix("10.1.0.0", "255.255.0.0").covers(prefix("10.0.0.0", "255.0.0.0")));
        assertFalse(match(ipv4(), ipv4Src("10.1.2.3")).covers(prefix("10.0.0.0", "255.0.0.0")));
        assertFalse(match(inPort(1)).covers(FlowMatch.ANY));
    }

    @Test
    void overlapsIsConservativeFieldByField() {
        assertTrue(prefix("10.0.0.0", "255.0.0.0").overlaps(match(ipv4(), ipv4Src("10.1.2.3"))));
        assertFalse(prefix("10.0.0.0", "255.0.0.0").overlaps(match(ipv4(), ipv4Src("11.1.2.3"))));
        assertTrue(match(inPort(1)).overlaps(match(ipv4())));
        assertFalse(match(inPort(1)).overlaps(match(inPort(2))));
        FlowMatch multicast = match(OF13.oxms().ethDstMasked(MacAddress.of("01:00:00:00:00:00"),
                MacAddress.of("01:00:00:00:00:00")));
        assertTrue(multicast.overlaps(match(OF13.oxms().ethDst(MacAddress.of("ff:ff:ff:ff:ff:ff")))));
        assertFalse(multicast.overlaps(match(OF13.oxms().ethDst(MacAddress.of("02:00:00:00:00:01")))));
    }

    @Test
    void inPortCanBeReplacedAndRemoved() {
        FlowMatch m = match(inPort(1), ipv4());
        assertEquals(OFPort.of(7), m.withInPort(OFPort.of(7)).inPort().orElseThrow());
        assertEquals(match(ipv4()), m.without(java.util.EnumSet.of(
                org.projectfloodlight.openflow.protocol.match.MatchFields.IN_PORT)));
        assertEquals(List.of(), List.copyOf(FlowMatch.ANY.oxms()));
    }
}
