package org.uno.oneswitch.endpoint;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.projectfloodlight.openflow.protocol.OFAggregateStatsRequest;
import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowStatsRequest;
import org.projectfloodlight.openflow.protocol.OFPortStatsRequest;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.protocol.OFTableFeaturesFailedCode;
import org.projectfloodlight.openflow.protocol.OFTableFeaturesStatsRequest;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.MatchCodec;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.TableFeaturesFailedException;
import org.uno.oneswitch.model.FlowFilter;

/**
 * Multipart (stats) requests of the virtual switch: DESC, FLOW, AGGREGATE, TABLE, PORT_STATS,
 * PORT_DESC, TABLE_FEATURES (read only). Counters come from the physical switches, so replies may
 * be sent later; they are still sent before the reply to any later barrier.
 */
final class MultipartHandler {
    private static final Logger LOG = LoggerFactory.getLogger(MultipartHandler.class);

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
                        r.getCookieMask(), r.getOutPort(), r.getOutGroup())), entries -> Multiparts.replies(entries,
                        (chunk, flags) -> f.buildFlowStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            }
            case AGGREGATE -> {
                OFAggregateStatsRequest r = (OFAggregateStatsRequest) req;
                later(c, req, vs.stats().aggregate(filter(r.getTableId().getValue(), r.getMatch(), r.getCookie(),
                        r.getCookieMask(), r.getOutPort(), r.getOutGroup())), a -> List.of(f.buildAggregateStatsReply()
                        .setXid(xid).setPacketCount(U64.of(a.packets())).setByteCount(U64.of(a.bytes()))
                        .setFlowCount(a.flows()).build()));
            }
            case TABLE -> later(c, req, vs.stats().tableStats(), entries -> Multiparts.replies(entries,
                    (chunk, flags) -> f.buildTableStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            case PORT -> later(c, req, vs.stats().portStats(((OFPortStatsRequest) req).getPortNo()),
                    entries -> Multiparts.replies(entries, (chunk, flags) -> f.buildPortStatsReply().setXid(xid)
                            .setFlags(flags).setEntries(chunk).build()));
            case PORT_DESC -> c.sendAll(Multiparts.replies(vs.ports().descriptions(), (chunk, flags) ->
                    f.buildPortDescStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            case TABLE_FEATURES -> {
                if (!((OFTableFeaturesStatsRequest) req).getEntries().isEmpty()) {
                    throw new TableFeaturesFailedException(OFTableFeaturesFailedCode.EPERM,
                            "the virtual switch's tables cannot be reconfigured");
                }
                c.sendAll(Multiparts.replies(TableFeatures.of(f, vs.tables()), (chunk, flags) ->
                        f.buildTableFeaturesStatsReply().setXid(xid).setFlags(flags).setEntries(chunk).build()));
            }
            default -> throw new BadRequestException(OFBadRequestCode.BAD_STAT, "multipart type "
                    + req.getStatsType() + " is not supported");
        }
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
        result.whenComplete((value, t) -> {
            if (t == null) {
                c.sendAll(replies.apply(value));
            } else {
                LOG.warn("stats request {} failed: {}", req.getStatsType(), t.toString());
                c.refuse(new BadRequestException(OFBadRequestCode.EPERM, "statistics unavailable: " + t), req);
            }
        });
    }
}
