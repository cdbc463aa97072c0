package org.uno.oneswitch.south;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.OF13;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsReplyFlags;
import org.projectfloodlight.openflow.protocol.OFType;
import org.uno.oneswitch.codec.DeferredFlush;

/** Xids, barriers and error routing on one connection to a physical switch. */
class RequestTrackerTest {
    private final EmbeddedChannel ch = new EmbeddedChannel();
    private final RequestTracker t = new RequestTracker(new DeferredFlush(ch), () -> "host");

    private List<OFMessage> written() {
        ch.runPendingTasks();
        List<OFMessage> out = new ArrayList<>();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            try {
                while (b.isReadable()) {
                    out.add(OFFactories.getGenericReader().readFrom(b));
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                b.release();
            }
        }
        return out;
    }

    @Test
    void barrierIsSentOnlyAfterTraffic() {
        CompletableFuture<Void> idle = t.barrier();
        assertTrue(idle.isDone(), "nothing sent: nothing to wait for");
        t.send(OF13.buildFlowAdd(), null);
        CompletableFuture<Void> b1 = t.barrier();
        CompletableFuture<Void> b2 = t.barrier();
        assertSame(b1, b2, "a second barrier with nothing new sent waits for the first");
        List<OFMessage> out = written();
        assertEquals(List.of(OFType.FLOW_MOD, OFType.BARRIER_REQUEST), out.stream().map(OFMessage::getType).toList());
        assertTrue(out.get(1).getXid() > out.get(0).getXid());
        assertFalse(b1.isDone());
        t.onMessage(OF13.buildBarrierReply().setXid(out.get(1).getXid()).build());
        assertTrue(b1.isDone());
    }

    @Test
    void errorsReachTheSenderOfTheFailingMessage() {
        List<String> seen = new ArrayList<>();
        t.send(OF13.buildFlowAdd(), (sw, e) -> seen.add(sw + ":" + e.code()));
        t.send(OF13.buildFlowAdd(), (sw, e) -> seen.add("second"));
        List<OFMessage> out = written();
        OFErrorMsg err = OF13.errorMsgs().buildFlowModFailedErrorMsg().setXid(out.get(0).getXid())
                .setCode(OFFlowModFailedCode.TABLE_FULL).build();
        assertTrue(t.onMessage(err));
        assertEquals(List.of("host:TABLE_FULL"), seen);
    }

    @Test
    void multipartRepliesAreGatheredAndFailOnClose() throws Exception {
        CompletableFuture<List<OFStatsReply>> f = t.request(OF13.buildPortStatsRequest().build());
        long xid = written().get(0).getXid();
        t.onMessage(OF13.buildPortStatsReply().setXid(xid).setFlags(Set.of(OFStatsReplyFlags.REPLY_MORE))
                .setEntries(List.of()).build());
        assertFalse(f.isDone());
        t.onMessage(OF13.buildPortStatsReply().setXid(xid).setEntries(List.of()).build());
        assertEquals(2, f.get().size());
        CompletableFuture<List<OFStatsReply>> pending = t.request(OF13.buildPortStatsRequest().build());
        t.failAll();
        assertTrue(pending.isCompletedExceptionally());
    }

    @Test
    void aStreamWithoutBarriersGetsOneEveryFewListenersAndItsReplyLetsThemGo() {
        List<Long> refused = new ArrayList<>();
        for (int i = 0; i < RequestTracker.LISTENERS_PER_BARRIER - 1; i++) {
            long n = i;
            t.send(OF13.buildFlowAdd(), (sw, e) -> refused.add(n));
        }
        t.send(OF13.buildFlowAdd(), null);
        List<OFMessage> before = written();
        assertTrue(before.stream().noneMatch(m -> m.getType() == OFType.BARRIER_REQUEST),
                "a message without a listener keeps nothing to let go");
        t.send(OF13.buildFlowAdd(), (sw, e) -> refused.add(-1L));
        List<OFMessage> out = written();
        assertEquals(List.of(OFType.FLOW_MOD, OFType.BARRIER_REQUEST), out.stream().map(OFMessage::getType).toList(),
                "the listener that made them " + RequestTracker.LISTENERS_PER_BARRIER + " sends a barrier after its message");
        t.onMessage(OF13.buildBarrierReply().setXid(out.get(1).getXid()).build());
        t.onMessage(OF13.errorMsgs().buildFlowModFailedErrorMsg().setXid(before.get(0).getXid())
                .setCode(OFFlowModFailedCode.TABLE_FULL).build());
        assertEquals(List.of(), refused, "the barrier's reply showed the first message processed: its listener is gone");
        t.send(OF13.buildFlowAdd(), (sw, e) -> refused.add(0L));
        assertTrue(written().stream().noneMatch(m -> m.getType() == OFType.BARRIER_REQUEST),
                "the count starts again after a barrier");
    }
}
