package org.uno.oneswitch.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.uno.oneswitch.testing.Fixtures.OF13;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFBadMatchCode;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.IPv4Address;
import org.projectfloodlight.openflow.types.IpProtocol;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TransportPort;
import org.uno.oneswitch.error.BadMatchException;
import org.uno.oneswitch.model.FlowMatch;

class MatchCodecTest {
    private static OFBadMatchCode refused(Match m) {
        return assertThrows(BadMatchException.class, () -> MatchCodec.decode(m)).code() instanceof OFBadMatchCode c
                ? c : null;
    }

    @Test
    void roundTrips() throws Exception {
        Match m = OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(3)).setExact(MatchField.ETH_TYPE, EthType.IPv4)
                .setExact(MatchField.IP_PROTO, IpProtocol.TCP).setExact(MatchField.TCP_DST, TransportPort.of(80))
                .setMasked(MatchField.IPV4_DST, IPv4Address.of("10.0.0.0"), IPv4Address.of("255.0.0.0")).build();
        FlowMatch fm = MatchCodec.decode(m);
        assertEquals(fm, MatchCodec.decode(MatchCodec.encode(fm, OF13)));
    }

    @Test
    void refusesMissingPrerequisites() {
        assertEquals(OFBadMatchCode.BAD_PREREQ, refused(OF13.buildMatch()
                .setExact(MatchField.IPV4_SRC, IPv4Address.of("10.0.0.1")).build()));
        assertEquals(OFBadMatchCode.BAD_PREREQ, refused(OF13.buildMatch().setExact(MatchField.ETH_TYPE, EthType.IPv4)
                .setExact(MatchField.TCP_DST, TransportPort.of(80)).build()));
        assertEquals(OFBadMatchCode.BAD_PREREQ, refused(OF13.buildMatch().setExact(MatchField.ETH_TYPE, EthType.IPv4)
                .setExact(MatchField.IP_PROTO, IpProtocol.UDP).setExact(MatchField.TCP_DST, TransportPort.of(80))
                .build()));
    }

    @Test
    void refusesBadMasks() {
        assertEquals(OFBadMatchCode.BAD_WILDCARDS, refused(OF13.buildMatch().setExact(MatchField.ETH_TYPE, EthType.IPv4)
                .setMasked(MatchField.IPV4_DST, IPv4Address.of("10.0.0.1"), IPv4Address.of("255.0.0.0")).build()));
        assertEquals(OFBadMatchCode.BAD_MASK, refused(OF13.buildMatch()
                .setMasked(MatchField.IN_PORT, OFPort.of(1), OFPort.of(1)).build()));
    }
}
