package org.uno.oneswitch.endpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.OF13;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFControllerRole;
import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFErrorType;
import org.projectfloodlight.openflow.protocol.OFFeaturesReply;
import org.projectfloodlight.openflow.protocol.OFHello;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFRoleReply;
import org.projectfloodlight.openflow.protocol.OFType;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadRequestErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFRoleRequestFailedErrorMsg;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;

/** Handshake, liveness, roles and refusals of one controller connection. */
class ControllerConnectionTest {
    private final Harness h;

    ControllerConnectionTest() throws Exception {
        h = new Harness();
    }

    private static OFErrorMsg onlyError(List<OFMessage> msgs, long xid) {
        assertEquals(1, msgs.size(), msgs.toString());
        OFErrorMsg e = assertInstanceOf(OFErrorMsg.class, msgs.get(0));
        assertEquals(xid, e.getXid());
        return e;
    }

    @Test
    void negotiatesOpenFlow13AndAnswersEchoAndFeatures() {
        Harness.Conn c = h.connect(false, false);
        c.send(Hellos13.hello(0x1e)); // bitmap with 1.1 .. 1.4
        c.send(OF13.buildEchoRequest().setXid(7).setData(new byte[] {1, 2}).build());
        c.send(OF13.buildFeaturesRequest().setXid(8).build());
        List<OFMessage> got = c.received();
        assertEquals(OFType.ECHO_REPLY, got.get(0).getType());
        assertEquals(7, got.get(0).getXid());
        OFFeaturesReply f = assertInstanceOf(OFFeaturesReply.class, got.get(1));
        assertEquals(0xabcL, f.getDatapathId().getLong());
        assertEquals(8, f.getNTables());
    }

    @Test
    void refusesPeersWithoutOpenFlow13() {
        Harness.Conn c = h.connect(false, false);
        c.send(Hellos13.hello(1 << 1)); // OpenFlow 1.0 only
        OFErrorMsg e = onlyError(c.received(), 0);
        assertEquals(OFErrorType.HELLO_FAILED, e.getErrType());
        assertFalse(c.ch.isActive());
    }

    @Test
    void unsupportedMessagesGetBadTypeWithTheirXid() {
        Harness.Conn c = h.connect(false, true);
        c.send(OF13.buildQueueGetConfigRequest().setXid(42).setPort(OFPort.ANY).build());
        OFBadRequestErrorMsg e = assertInstanceOf(OFBadRequestErrorMsg.class, onlyError(c.received(), 42));
        assertEquals(OFBadRequestCode.BAD_TYPE, e.getCode());
    }

    @Test
    void noMetersAndNoQueues() {
        Harness.Conn c = h.connect(false, true);
        c.send(OF13.buildMeterMod().setXid(42).setCommand(org.projectfloodlight.openflow.protocol.OFMeterModCommand.ADD)
                .setMeterId(1).setMeters(List.of()).build());
        var e = assertInstanceOf(org.projectfloodlight.openflow.protocol.errormsg.OFMeterModFailedErrorMsg.class,
                onlyError(c.received(), 42));
        assertEquals(org.projectfloodlight.openflow.protocol.OFMeterModFailedCode.OUT_OF_METERS, e.getCode());
        c.send(OF13.buildQueueStatsRequest().setXid(43).setPortNo(OFPort.ANY).setQueueId(0xffffffffL).build());
        var q = assertInstanceOf(org.projectfloodlight.openflow.protocol.OFQueueStatsReply.class, c.received().get(0));
        assertTrue(q.getEntries().isEmpty());
    }

    @Test
    void garbageGetsErrorsAndAnUnframeableStreamCloses() {
        Harness.Conn c = h.connect(false, true);
        c.sendBytes(Unpooled.wrappedBuffer(new byte[] {4, (byte) 200, 0, 8, 0, 0, 0, 9}));
        assertEquals(OFBadRequestCode.BAD_TYPE, ((OFBadRequestErrorMsg) onlyError(c.received(), 9)).getCode());
        c.sendBytes(Unpooled.wrappedBuffer(new byte[] {2, 2, 0, 8, 0, 0, 0, 10}));
        assertEquals(OFBadRequestCode.BAD_VERSION, ((OFBadRequestErrorMsg) onlyError(c.received(), 10)).getCode());
        c.sendBytes(Unpooled.wrappedBuffer(new byte[] {4, 14, 0, 12, 0, 0, 0, 11, 1, 2, 3, 4}));
        assertEquals(OFBadRequestCode.BAD_LEN, ((OFBadRequestErrorMsg) onlyError(c.received(), 11)).getCode());
        assertTrue(c.ch.isActive());
        c.sendBytes(Unpooled.wrappedBuffer(new byte[] {4, 2, 0, 4, 0, 0, 0, 12, 9, 9, 9}));
        onlyError(c.received(), 12);
        assertFalse(c.ch.isActive());
        Harness.Conn other = h.connect(false, true);
        other.send(OF13.buildEchoRequest().setXid(13).setData(new byte[0]).build());
        assertEquals(OFType.ECHO_REPLY, other.received().get(0).getType());
    }

    @Test
    void rolesFollowGenerationIdsAndSlavesCannotWrite() {
        Harness.Conn a = h.connect(false, true);
        Harness.Conn b = h.connect(false, true);
        a.send(OF13.buildRoleRequest().setXid(1).setRole(OFControllerRole.ROLE_MASTER).setGenerationId(U64.of(5)).build());
        assertEquals(OFControllerRole.ROLE_MASTER, ((OFRoleReply) a.received().get(0)).getRole());
        b.send(OF13.buildRoleRequest().setXid(2).setRole(OFControllerRole.ROLE_MASTER).setGenerationId(U64.of(4)).build());
        assertInstanceOf(OFRoleRequestFailedErrorMsg.class, onlyError(b.received(), 2));
        b.send(OF13.buildRoleRequest().setXid(3).setRole(OFControllerRole.ROLE_MASTER).setGenerationId(U64.of(6)).build());
        assertEquals(OFControllerRole.ROLE_MASTER, ((OFRoleReply) b.received().get(0)).getRole());
        a.send(OF13.buildRoleRequest().setXid(4).setRole(OFControllerRole.ROLE_NOCHANGE).setGenerationId(U64.ZERO).build());
        assertEquals(OFControllerRole.ROLE_SLAVE, ((OFRoleReply) a.received().get(0)).getRole());
        a.send(OF13.buildFlowAdd().setXid(5).setMatch(OF13.buildMatch().build()).build());
        assertEquals(OFBadRequestCode.IS_SLAVE, ((OFBadRequestErrorMsg) onlyError(a.received(), 5)).getCode());
    }

    @Test
    void aTurnThatHasUsedItsTimeLeavesTheRestForLaterInOrder() throws Exception {
        Harness.Conn quick = new Harness(1000, 0).connect(false, true);
        Harness.Conn usual = new Harness(1000, TimeUnit.MINUTES.toNanos(1)).connect(false, true);
        for (Harness.Conn c : List.of(quick, usual)) {
            // fired straight into the pipeline: the embedded channel runs no task of its own meanwhile
            c.ch.pipeline().fireChannelRead(echoes(20));
            c.ch.pipeline().fireChannelReadComplete();
        }
        // a zero budget: one request in this turn, the socket no longer read, the rest for a task scheduled
        // behind the loop's next look at its sockets; within a budget, all 20 in one turn
        assertFalse(quick.ch.config().isAutoRead());
        assertTrue(usual.ch.config().isAutoRead());
        List<Long> xids = quick.received().stream().map(OFMessage::getXid).toList();
        assertEquals(LongStream.rangeClosed(1, 20).boxed().toList(), xids);
        assertTrue(quick.ch.config().isAutoRead());
    }

    private static ByteBuf echoes(int n) {
        ByteBuf batch = Unpooled.buffer();
        for (int xid = 1; xid <= n; xid++) {
            OF13.buildEchoRequest().setXid(xid).setData(new byte[0]).build().writeTo(batch);
        }
        return batch;
    }

    /** HELLOs with a version bitmap. */
    private static final class Hellos13 {
        static OFHello hello(long bitmap) {
            return OF13.buildHello().setXid(0).setElements(List.of(OF13.buildHelloElemVersionbitmap()
                    .setBitmaps(List.of(org.projectfloodlight.openflow.types.U32.of(bitmap))).build())).build();
        }
    }
}
