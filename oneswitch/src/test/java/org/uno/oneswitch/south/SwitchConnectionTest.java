package org.uno.oneswitch.south;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.OF13;

import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.types.DatapathId;
import org.uno.oneswitch.codec.Hellos;
import org.uno.oneswitch.codec.OfFrameDecoder;
import org.uno.oneswitch.core.PhysicalEvents;
import org.uno.oneswitch.core.SwitchTables;
import org.uno.oneswitch.model.PhysicalPacketIn;
import org.uno.oneswitch.testing.Fixtures;

/** A physical switch's controller connection: what it survives and what closes it. */
class SwitchConnectionTest {
    private final List<String> events = new ArrayList<>();
    private final PhysicalSwitches registry = new PhysicalSwitches(Fixtures.topology(1));
    private final EmbeddedChannel ch;

    SwitchConnectionTest() {
        registry.setEvents(new PhysicalEvents() {
            @Override
            public void switchConnected(String id, SwitchTables tables) {
                events.add("connected " + id);
            }

            @Override
            public void switchDisconnected(String id) {
                events.add("disconnected " + id);
            }

            @Override
            public void portsChanged(String id) {
            }

            @Override
            public void packetIn(String id, PhysicalPacketIn p) {
                events.add("packet-in " + id);
            }
        });
        ch = new EmbeddedChannel(new OfFrameDecoder(), new SwitchConnection(registry, 3));
        send(Hellos.ours(OF13));
        send(OF13.buildFeaturesReply().setXid(1).setDatapathId(DatapathId.of(1)).build());
    }

    private void send(OFMessage m) {
        ByteBuf b = Unpooled.buffer();
        m.writeTo(b);
        ch.writeInbound(b);
        ch.runPendingTasks();
    }

    private void sendBytes(byte[] bytes) {
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
        ch.runPendingTasks();
    }

    @Test
    void aMessageThatDoesNotDecodeInAnIntactStreamIsSkippedAndTheSwitchStays() {
        // a PACKET_IN (type 10) of 24 bytes whose body is not a PACKET_IN
        byte[] bad = new byte[24];
        bad[0] = 4;
        bad[1] = 10;
        bad[3] = 24;
        java.util.Arrays.fill(bad, 8, 24, (byte) 0xff);
        sendBytes(bad);
        assertTrue(ch.isOpen(), "the bridge's connection closed on one undecodable message");
        send(OF13.buildEchoRequest().setXid(9).setData(new byte[0]).build());
        assertTrue(ch.isOpen());
    }

    @Test
    void aLengthBelowTheHeaderBreaksTheFramingAndClosesTheConnection() {
        sendBytes(new byte[] {4, 10, 0, 1, 0, 0, 0, 7});
        assertFalse(ch.isOpen());
    }
}
