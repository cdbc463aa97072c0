package org.uno.oneswitch.endpoint;

import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMessageReader;
import org.projectfloodlight.openflow.types.DatapathId;
import org.uno.oneswitch.codec.Hellos;
import org.uno.oneswitch.codec.OfFrameDecoder;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.testing.Fixtures;
import org.uno.oneswitch.testing.RecordingNetwork;

/**
 * A virtual switch over a {@link RecordingNetwork}, with controller connections on Netty embedded
 * channels: bytes in, bytes out, the real pipeline in between.
 */
final class Harness {
    private static final OFMessageReader<OFMessage> READER = OFFactories.getGenericReader();

    final RecordingNetwork net = new RecordingNetwork(Fixtures.topology(1));
    final Northbound north;
    long now = 1_000_000_000L;
    /** Tasks scheduled on the virtual switch's timers, run by {@link #runTimers()}. */
    final List<Runnable> timers = new ArrayList<>();
    final VirtualSwitch vs;

    Harness() throws Exception {
        this(VirtualSwitch.DEFAULT_MAX_RULES);
    }

    /** A harness whose virtual switch holds at most {@code maxRules} virtual rules. */
    Harness(int maxRules) throws Exception {
        this(maxRules, Northbound.Limits.TURN_NANOS);
    }

    /** A harness whose connections' requests get turns of {@code turnNanos} on the event loop. */
    Harness(int maxRules, long turnNanos) throws Exception {
        north = new Northbound(null, org.uno.oneswitch.codec.Transport.nio(),
                new Northbound.Limits(5, 3, 16 << 20, 64, turnNanos));
        vs = new VirtualSwitch(DatapathId.of(0xabcL), 8, Fixtures.topology(1), net, north.notifier(), () -> now,
                (ms, task) -> timers.add(task), 1000, maxRules);
        north.serve(vs, net, new Northbound.Identity("UNO", "hw", "sw", "serial", "dp"));
        north.open();
        for (var m : Fixtures.ports(1).mappings()) {
            vs.ports().add(new org.uno.oneswitch.core.PortRequest(m.physical().switchId(), m.physicalName(), null,
                    (long) m.virtualPort().getPortNumber(), null));
        }
    }

    /** Runs every scheduled task now (as if its time had come). */
    void runTimers() {
        List<Runnable> due = new ArrayList<>(timers);
        timers.clear();
        due.forEach(Runnable::run);
    }

    /** A new connection (active unless {@code passive}); with {@code hello} the handshake is done. */
    Conn connect(boolean passive, boolean hello) {
        EmbeddedChannel ch = new EmbeddedChannel(new OfFrameDecoder(),
                new ControllerConnection(north, passive));
        Conn c = new Conn(ch);
        c.received();
        if (hello) {
            c.send(Hellos.ours(Fixtures.OF13));
        }
        return c;
    }

    /** One controller connection. */
    static final class Conn {
        final EmbeddedChannel ch;

        Conn(EmbeddedChannel ch) {
            this.ch = ch;
        }

        void send(OFMessage m) {
            ByteBuf b = Unpooled.buffer();
            m.writeTo(b);
            sendBytes(b);
        }

        void sendBytes(ByteBuf b) {
            ch.writeInbound(b);
            ch.runPendingTasks();
        }

        /** Everything OneSwitch sent on this connection since the last call. */
        List<OFMessage> received() {
            ch.runPendingTasks();
            ByteBuf all = Unpooled.buffer();
            for (Object o; (o = ch.readOutbound()) != null; ) {
                all.writeBytes((ByteBuf) o);
                ((ByteBuf) o).release();
            }
            List<OFMessage> out = new ArrayList<>();
            try {
                while (all.isReadable()) {
                    out.add(READER.readFrom(all));
                }
            } catch (Exception e) {
                throw new AssertionError("OneSwitch sent something undecodable", e);
            }
            return out;
        }
    }
}
