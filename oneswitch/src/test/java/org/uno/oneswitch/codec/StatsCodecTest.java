package org.uno.oneswitch.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.uno.oneswitch.testing.Fixtures.OF13;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFPortConfig;
import org.projectfloodlight.openflow.protocol.OFPortFeatures;
import org.projectfloodlight.openflow.protocol.OFPortState;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.stats.GroupCounters;
import org.uno.oneswitch.stats.MeterCounters;
import org.uno.oneswitch.stats.MeterFeatures;
import org.uno.oneswitch.stats.PortCounters;
import org.uno.oneswitch.stats.PortDescription;
import org.uno.oneswitch.stats.TableCounters;

/** Every counter and description the core exchanges survives the wire both ways, field for field. */
class StatsCodecTest {
    @Test
    void portCountersKeepEveryField() {
        // distinct values, so that two fields swapped in either direction show
        PortCounters c = new PortCounters(OFPort.of(7), new Counts(1, 2), new Counts(3, 4), 5, 6, 7, 8, 9, 10, 11, 12,
                13, 14);
        assertEquals(c, StatsCodec.port(StatsCodec.encode(OF13, c)));
    }

    @Test
    void tableGroupAndMeterCountersKeepEveryField() {
        TableCounters t = new TableCounters(3, 4, 5, 6);
        assertEquals(t, StatsCodec.table(StatsCodec.encode(OF13, t)));
        GroupCounters g = new GroupCounters(0xfff00001L, 2, new Counts(30, 4000), List.of(new Counts(10, 1000),
                new Counts(20, 3000)));
        assertEquals(g, StatsCodec.group(StatsCodec.encode(OF13, g)));
        MeterCounters m = new MeterCounters(9, 2, new Counts(50, 6000), List.of(new Counts(7, 800)), 11, 12);
        assertEquals(m, StatsCodec.meter(StatsCodec.encode(OF13, m)));
        MeterFeatures f = new MeterFeatures(200, 0b110, 0xf, 8, 0);
        assertEquals(f, StatsCodec.features(StatsCodec.encode(OF13, f)));
    }

    @Test
    void portDescriptionsKeepEveryField() {
        PortDescription d = new PortDescription(OFPort.of(4), "vm0", MacAddress.of("02:00:00:00:00:04"),
                Set.of(OFPortConfig.NO_FWD), Set.of(OFPortState.LIVE), Set.of(OFPortFeatures.PF_10GB_FD),
                Set.of(OFPortFeatures.PF_1GB_FD), Set.of(OFPortFeatures.PF_COPPER), Set.of(OFPortFeatures.PF_AUTONEG),
                10_000_000, 20_000_000);
        assertEquals(d, PortDescCodec.decode(PortDescCodec.encode(OF13, d)));
        assertEquals(new PortDescription(OFPort.of(9), "nf1", d.hwAddr(), d.config(), d.state(), d.curr(),
                d.advertised(), d.supported(), d.peer(), d.currSpeed(), d.maxSpeed()), d.as(OFPort.of(9), "nf1"));
    }
}
