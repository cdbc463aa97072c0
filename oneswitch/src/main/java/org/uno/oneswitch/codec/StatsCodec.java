package org.uno.oneswitch.codec;

import java.util.List;

import org.projectfloodlight.openflow.protocol.OFBucketCounter;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFGroupStatsEntry;
import org.projectfloodlight.openflow.protocol.OFMeterBandStats;
import org.projectfloodlight.openflow.protocol.OFMeterFeatures;
import org.projectfloodlight.openflow.protocol.OFMeterStats;
import org.projectfloodlight.openflow.protocol.OFPortStatsEntry;
import org.projectfloodlight.openflow.protocol.OFTableStatsEntry;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.stats.EntryCounters;
import org.uno.oneswitch.stats.GroupCounters;
import org.uno.oneswitch.stats.MeterCounters;
import org.uno.oneswitch.stats.MeterFeatures;
import org.uno.oneswitch.stats.PortCounters;
import org.uno.oneswitch.stats.RuleStats;
import org.uno.oneswitch.stats.TableCounters;

/**
 * OpenFlow 1.3 statistics entries to and from the records of {@link org.uno.oneswitch.stats}: the
 * southbound decodes the physical switches' replies, the northbound encodes the virtual switch's.
 */
public final class StatsCodec {
    private StatsCodec() {
    }

    public static EntryCounters entry(OFFlowStatsEntry e) {
        return new EntryCounters(e.getCookie(), new Counts(e.getPacketCount().getValue(), e.getByteCount().getValue()));
    }

    public static OFFlowStatsEntry encode(OFFactory f, RuleStats s) {
        VirtualRule r = s.rule();
        return f.buildFlowStatsEntry().setTableId(TableId.of(r.table())).setDurationSec(s.durationSec())
                .setDurationNsec(s.durationNsec()).setPriority(r.priority()).setIdleTimeout(r.idleTimeout())
                .setHardTimeout(r.hardTimeout()).setFlags(r.flags()).setCookie(r.cookie())
                .setPacketCount(U64.of(s.counts().packets())).setByteCount(U64.of(s.counts().bytes()))
                .setMatch(MatchCodec.encode(r.match(), f)).setInstructions(InstructionCodec.encode(r.instructions(), f))
                .build();
    }

    public static PortCounters port(OFPortStatsEntry e) {
        return new PortCounters(e.getPortNo(), new Counts(e.getRxPackets().getValue(), e.getRxBytes().getValue()),
                new Counts(e.getTxPackets().getValue(), e.getTxBytes().getValue()), e.getRxDropped().getValue(),
                e.getTxDropped().getValue(), e.getRxErrors().getValue(), e.getTxErrors().getValue(),
                e.getRxFrameErr().getValue(), e.getRxOverErr().getValue(), e.getRxCrcErr().getValue(),
                e.getCollisions().getValue(), e.getDurationSec(), e.getDurationNsec());
    }

    public static OFPortStatsEntry encode(OFFactory f, PortCounters c) {
        return f.buildPortStatsEntry().setPortNo(c.port()).setRxPackets(U64.of(c.rx().packets()))
                .setRxBytes(U64.of(c.rx().bytes())).setTxPackets(U64.of(c.tx().packets()))
                .setTxBytes(U64.of(c.tx().bytes())).setRxDropped(U64.of(c.rxDropped()))
                .setTxDropped(U64.of(c.txDropped())).setRxErrors(U64.of(c.rxErrors()))
                .setTxErrors(U64.of(c.txErrors())).setRxFrameErr(U64.of(c.rxFrameErrors()))
                .setRxOverErr(U64.of(c.rxOverErrors())).setRxCrcErr(U64.of(c.rxCrcErrors()))
                .setCollisions(U64.of(c.collisions())).setDurationSec(c.durationSec())
                .setDurationNsec(c.durationNsec()).build();
    }

    public static TableCounters table(OFTableStatsEntry e) {
        return new TableCounters(e.getTableId().getValue(), e.getActiveCount(), e.getLookupCount().getValue(),
                e.getMatchedCount().getValue());
    }

    public static OFTableStatsEntry encode(OFFactory f, TableCounters c) {
        return f.buildTableStatsEntry().setTableId(TableId.of(c.table())).setActiveCount(c.active())
                .setLookupCount(U64.of(c.lookups())).setMatchedCount(U64.of(c.matched())).build();
    }

    public static GroupCounters group(OFGroupStatsEntry e) {
        List<Counts> buckets = e.getBucketStats().stream()
                .map(b -> new Counts(b.getPacketCount().getValue(), b.getByteCount().getValue())).toList();
        return new GroupCounters(Integer.toUnsignedLong(e.getGroup().getGroupNumber()), e.getRefCount(),
                new Counts(e.getPacketCount().getValue(), e.getByteCount().getValue()), buckets);
    }

    public static OFGroupStatsEntry encode(OFFactory f, GroupCounters c) {
        List<OFBucketCounter> buckets = c.buckets().stream()
                .map(b -> f.bucketCounter(U64.of(b.packets()), U64.of(b.bytes()))).toList();
        return f.buildGroupStatsEntry().setGroup(OFGroup.of((int) c.group())).setRefCount(c.refCount())
                .setPacketCount(U64.of(c.total().packets())).setByteCount(U64.of(c.total().bytes()))
                .setBucketStats(buckets).build();
    }

    public static MeterCounters meter(OFMeterStats e) {
        List<Counts> bands = e.getBandStats().stream()
                .map(b -> new Counts(b.getPacketBandCount().getValue(), b.getByteBandCount().getValue())).toList();
        return new MeterCounters(e.getMeterId(), e.getFlowCount(), new Counts(e.getPacketInCount().getValue(),
                e.getByteInCount().getValue()), bands, e.getDurationSec(), e.getDurationNsec());
    }

    public static OFMeterStats encode(OFFactory f, MeterCounters c) {
        List<OFMeterBandStats> bands = c.bands().stream()
                .map(b -> f.meterBandStats(U64.of(b.packets()), U64.of(b.bytes()))).toList();
        return f.buildMeterStats().setMeterId(c.meter()).setFlowCount(c.flowCount())
                .setPacketInCount(U64.of(c.in().packets())).setByteInCount(U64.of(c.in().bytes()))
                .setDurationSec(c.durationSec()).setDurationNsec(c.durationNsec()).setBandStats(bands).build();
    }

    public static MeterFeatures features(OFMeterFeatures f) {
        return new MeterFeatures(f.getMaxMeter(), f.getBandTypes(), f.getCapabilities(),
                Short.toUnsignedInt(f.getMaxBands()), Short.toUnsignedInt(f.getMaxColor()));
    }

    public static OFMeterFeatures encode(OFFactory f, MeterFeatures m) {
        return f.buildMeterFeatures().setMaxMeter(m.maxMeter()).setBandTypes(m.bandTypes())
                .setCapabilities(m.capabilities()).setMaxBands((short) m.maxBands()).setMaxColor((short) m.maxColor())
                .build();
    }
}
