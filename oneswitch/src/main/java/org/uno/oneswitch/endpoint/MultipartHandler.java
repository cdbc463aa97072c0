package org.uno.oneswitch.endpoint;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.projectfloodlight.openflow.protocol.OFAggregateStatsRequest;
import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowStatsRequest;
import org.projectfloodlight.openflow.protocol.OFGroupCapabilities;
import org.projectfloodlight.openflow.protocol.OFGroupDescStatsEntry;
import org.projectfloodlight.openflow.protocol.OFGroupStatsRequest;
import org.projectfloodlight.openflow.protocol.OFMeterConfigStatsRequest;
import org.projectfloodlight.openflow.protocol.OFMeterStatsRequest;
import org.projectfloodlight.openflow.protocol.OFPortStatsRequest;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.protocol.OFTableFeaturesFailedCode;
import org.projectfloodlight.openflow.protocol.OFTableFeaturesStatsRequest;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.MatchCodec;
import org.uno.oneswitch.codec.MeterModCodec;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.codec.PortDescCodec;
import org.uno.oneswitch.codec.StatsCodec;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TableFeaturesFailedException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.translate.Layout;

/**
 * Multipart (stats) requests of the virtual switch: DESC, FLOW, AGGREGATE, TABLE, PORT_STATS,
 * PORT_DESC, TABLE_FEATURES (read only). Counters come from the physical switches, so replies may
 * be sent later; they are still sent before the reply to any later barrier.
 */
final class MultipartHandler {
    private static final Logger LOG = LoggerFactory.getLogger(MultipartHandler.class);

    /** Group types (bit per OFPGT_*), capabilities (select weight, liveness, chaining), limits. */
    private static final long GROUP_TYPES = 0xf;
    private static final java.util.Set<OFGroupCapabilities> GROUP_CAPABILITIES = java.util.EnumSet.of(
            OFGroupCapabilities.SELECT_WEIGHT, OFGroupCapabilities.SELECT_LIVENESS, OFGroupCapabilities.CHAINING);
    /** Groups OneSwitch can hold: one physical id each, below its own groups' (see core/PhysicalGroupIds). */
    private static final long MAX_GROUPS = Layout.FIRST_RESERVED_GROUP;

    private final VirtualSwitch vs;
    private final Northbound.Identity description;

    MultipartHandler(VirtualSwitch vs, Northbound.Identity description) {
        this.vs = vs;
        this.description = description;
    }

    void handle(ControllerConnection c, OFStatsRequest<?> req) throws OpenFlowException {
        OFFactory f = c.factory();
        long xid = req.getXid();
        switch (req.getStatsType()) {
            case DESC -> c.send(f.buildDescStatsReply().setXid(xid).setMfrDesc(description.manufacturer())
                    .setHwDesc(description.hardware()).setSwDesc(description.software())
                    .setSerialNum(description.serial()).setDpDesc(description.datapath()).build());
            case FLOW -> {
                OFFlowStatsRequest r = (OFFlowStatsRequest) req;
                later(c, req, vs.stats().flowStats(filter(r.getTableId().getValue(), r.getMatch(), r.getCookie(),
                        r.getCookieMask(), r.getOutPort(), r.getOutGroup())), stats -> Multiparts.replies(
                        encode(stats, s -> StatsCodec.encode(f, s)),
                        (chunk, flags) -> f.buildFlowStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            }
            case AGGREGATE -> {
                OFAggregateStatsRequest r = (OFAggregateStatsRequest) req;
                later(c, req, vs.stats().aggregate(filter(r.getTableId().getValue(), r.getMatch(), r.getCookie(),
                        r.getCookieMask(), r.getOutPort(), r.getOutGroup())), a -> List.of(f.buildAggregateStatsReply()
                        .setXid(xid).setPacketCount(U64.of(a.packets())).setByteCount(U64.of(a.bytes()))
                        .setFlowCount(a.flows()).build()));
            }
            case TABLE -> later(c, req, vs.stats().tableStats(), stats -> Multiparts.replies(
                    encode(stats, s -> StatsCodec.encode(f, s)),
                    (chunk, flags) -> f.buildTableStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            case PORT -> later(c, req, vs.stats().portStats(((OFPortStatsRequest) req).getPortNo()),
                    stats -> Multiparts.replies(encode(stats, s -> StatsCodec.encode(f, s)),
                            (chunk, flags) -> f.buildPortStatsReply().setXid(xid).setFlags(flags).setEntries(chunk)
                                    .build()));
            case GROUP_DESC -> c.sendAll(Multiparts.replies(groupDescs(f), (chunk, flags) ->
                    f.buildGroupDescStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            case GROUP -> later(c, req, vs.stats().groupStats(((OFGroupStatsRequest) req).getGroup(), vs.groups().all(),
                    List.copyOf(vs.flows().all())), stats -> Multiparts.replies(
                    encode(stats, s -> StatsCodec.encode(f, s)), (chunk, flags) -> f.buildGroupStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            case GROUP_FEATURES -> c.send(f.buildGroupFeaturesStatsReply().setXid(xid)
                    .setTypes(GROUP_TYPES).setCapabilities(GROUP_CAPABILITIES)
                    .setMaxGroupsAll(MAX_GROUPS).setMaxGroupsSelect(MAX_GROUPS).setMaxGroupsIndirect(MAX_GROUPS)
                    .setMaxGroupsFf(MAX_GROUPS).setActionsAll(TableFeatures.actionBitmap(f))
                    .setActionsSelect(TableFeatures.actionBitmap(f)).setActionsIndirect(TableFeatures.actionBitmap(f))
                    .setActionsFf(TableFeatures.actionBitmap(f)).build());
            case METER -> later(c, req, vs.meters().stats(((OFMeterStatsRequest) req).getMeterId()), stats ->
                    Multiparts.replies(encode(stats, s -> StatsCodec.encode(f, s)),
                            (chunk, flags) -> f.buildMeterStatsReply().setXid(xid).setFlags(flags).setEntries(chunk)
                                    .build()));
            case METER_CONFIG -> c.sendAll(Multiparts.replies(encode(vs.meters().configs(
                    ((OFMeterConfigStatsRequest) req).getMeterId()), m -> MeterModCodec.config(f, m)),
                    (chunk, flags) -> f.buildMeterConfigStatsReply().setXid(xid).setFlags(flags).setEntries(chunk)
                            .build()));
            case METER_FEATURES -> c.send(f.buildMeterFeaturesStatsReply().setXid(xid)
                    .setFeatures(StatsCodec.encode(f, vs.meters().features())).build());
            // No queues: the list is empty, as Open vSwitch's is on a bridge without any.
            case QUEUE -> c.send(f.buildQueueStatsReply().setXid(xid).setEntries(List.of()).build());
            case PORT_DESC -> c.sendAll(Multiparts.replies(encode(vs.ports().descriptions(),
                    d -> PortDescCodec.encode(f, d)), (chunk, flags) ->
                    f.buildPortDescStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            case TABLE_FEATURES -> {
                if (!((OFTableFeaturesStatsRequest) req).getEntries().isEmpty()) {
                    throw new TableFeaturesFailedException(OFTableFeaturesFailedCode.EPERM,
                            "the virtual switch's tables cannot be reconfigured");
                }
                c.sendAll(Multiparts.replies(TableFeatures.of(f, vs.tables(), vs.meters().features().maxMeter() > 0),
                        (chunk, flags) ->
                        f.buildTableFeaturesStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            }
            default -> throw new BadRequestException(OFBadRequestCode.BAD_STAT, "multipart type "
                    + req.getStatsType() + " is not supported");
        }
    }

    private static <T, E> List<E> encode(List<T> records, java.util.function.Function<T, E> codec) {
        return records.stream().map(codec).toList();
    }

    private List<OFGroupDescStatsEntry> groupDescs(OFFactory f) {
        List<OFGroupDescStatsEntry> out = new java.util.ArrayList<>();
        for (VirtualGroup g : vs.groups().all()) {
            out.add(f.buildGroupDescStatsEntry().setGroup(OFGroup.of((int) g.id())).setGroupType(g.type())
                    .setBuckets(PhysicalMessages.buckets(g.buckets(), f)).build());
        }
        return out;
    }

    private FlowFilter filter(int table, org.projectfloodlight.openflow.protocol.match.Match match, U64 cookie,
                              U64 cookieMask, org.projectfloodlight.openflow.types.OFPort outPort,
                              org.projectfloodlight.openflow.types.OFGroup outGroup) throws OpenFlowException {
        if (table != FlowFilter.ALL_TABLES && table >= vs.tables()) {
            throw new BadRequestException(OFBadRequestCode.BAD_TABLE_ID, "table " + table);
        }
        return new FlowFilter(table, MatchCodec.decode(match), false, 0, cookie, cookieMask, outPort, outGroup);
    }

    /** Sends the replies made from {@code result} when it completes (an error reply if it fails). */
    private static <T> void later(ControllerConnection c, OFStatsRequest<?> req, CompletableFuture<T> result,
                                  Function<T, List<OFStatsReply>> replies) {
        c.statsReply(result).whenComplete((value, t) -> {
            if (t == null) {
                c.sendAll(replies.apply(value));
            } else {
                LOG.warn("stats request {} failed: {}", req.getStatsType(), t.toString());
                c.refuse(new BadRequestException(OFBadRequestCode.EPERM, "statistics unavailable: " + t), req);
            }
        });
    }
}
