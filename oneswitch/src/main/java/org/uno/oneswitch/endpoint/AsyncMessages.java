package org.uno.oneswitch.endpoint;

import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowRemoved;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.projectfloodlight.openflow.protocol.OFPortStatus;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.codec.MatchCodec;
import org.uno.oneswitch.codec.PortDescCodec;
import org.uno.oneswitch.core.RuleRemoved;
import org.uno.oneswitch.core.VirtualPacketIn;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.PortDescription;

/** The virtual switch's asynchronous events as the OpenFlow messages its controllers get. */
public final class AsyncMessages {
    private AsyncMessages() {
    }

    public static OFPacketIn packetIn(OFFactory f, VirtualPacketIn p) {
        return f.buildPacketIn().setBufferId(OFBufferId.NO_BUFFER).setTotalLen(p.totalLen()).setReason(p.reason())
                .setTableId(TableId.of(p.table())).setCookie(p.cookie()).setMatch(MatchCodec.encode(p.match(), f))
                .setData(p.data()).build();
    }

    public static OFFlowRemoved flowRemoved(OFFactory f, RuleRemoved removed) {
        VirtualRule r = removed.rule();
        return f.buildFlowRemoved().setCookie(r.cookie()).setPriority(r.priority()).setReason(removed.reason())
                .setTableId(TableId.of(r.table())).setDurationSec(removed.durationSeconds())
                .setDurationNsec(removed.durationNanos()).setIdleTimeout(r.idleTimeout())
                .setHardTimeout(r.hardTimeout()).setPacketCount(U64.of(removed.counts().packets()))
                .setByteCount(U64.of(removed.counts().bytes())).setMatch(MatchCodec.encode(r.match(), f)).build();
    }

    public static OFPortStatus portStatus(OFFactory f, OFPortReason reason, PortDescription port) {
        return f.buildPortStatus().setReason(reason).setDesc(PortDescCodec.encode(f, port)).build();
    }
}
