package org.uno.oneswitch.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.sun.management.OperatingSystemMXBean;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.codec.Hellos;

/**
 * A flow_mod installation benchmark client: connects to a switch (OneSwitch over TCP, or an Open
 * vSwitch bridge over its Unix management socket), installs N rules
 * {@code priority=1, in_port=IN, eth_dst=<n>, actions=output:OUT} (IN "any": no in_port match), and
 * reports the rate, and the CPU time this process spent while the clock ran, as JSON.
 * Modes: "barrier" (each flow_mod followed by a barrier, waiting for its reply) and "stream" (all
 * flow_mods, then one barrier). Messages are encoded before the clock starts, so the client is not
 * the bottleneck.
 *
 * <pre>java -cp oneswitch.jar org.uno.oneswitch.bench.FlowModBench TARGET MODE COUNT IN_PORT|any OUT_PORT</pre>
 * TARGET is tcp:IP:PORT or unix:PATH.
 */
public final class FlowModBench {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    /** This process's CPU time, all threads (the clocked part's share is reported with the rate). */
    private static final OperatingSystemMXBean CPU = ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
    private static final int OFPT_ERROR = 1;
    private static final int OFPT_ECHO_REQUEST = 2;
    private static final int OFPT_BARRIER_REPLY = 21;

    private final SocketChannel ch;
    private final ByteBuffer in = ByteBuffer.allocate(1 << 20);
    private long errors;

    private FlowModBench(SocketChannel ch) {
        this.ch = ch;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: FlowModBench tcp:IP:PORT|unix:PATH barrier|stream COUNT IN_PORT|any OUT_PORT");
            System.exit(2);
        }
        String mode = args[1];
        int count = Integer.parseInt(args[2]);
        OFPort inPort = args[3].equals("any") ? null : OFPort.of(Integer.parseInt(args[3]));
        List<byte[]> flowMods = flowMods(count, inPort, OFPort.of(Integer.parseInt(args[4])));
        try (SocketChannel ch = open(args[0])) {
            FlowModBench b = new FlowModBench(ch);
            b.handshake();
            long cpuStart = CPU.getProcessCpuTime();
            long start = System.nanoTime();
            if (mode.equals("barrier")) {
                b.eachWithBarrier(flowMods);
            } else if (mode.equals("stream")) {
                b.streamed(flowMods);
            } else {
                throw new IllegalArgumentException("mode must be barrier or stream");
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuSeconds = (CPU.getProcessCpuTime() - cpuStart) / 1e9;
            System.out.printf(Locale.ROOT, "{\"mode\": \"%s\", \"count\": %d, \"seconds\": %.6f, \"rate\": %.1f, "
                    + "\"cpu_seconds\": %.6f, \"errors\": %d}%n", mode, count, seconds, count / seconds, cpuSeconds,
                    b.errors);
        }
    }

    private static SocketChannel open(String target) throws IOException {
        if (target.startsWith("unix:")) {
            return SocketChannel.open(UnixDomainSocketAddress.of(Path.of(target.substring(5))));
        }
        String[] hp = target.substring(4).split(":");
        SocketChannel ch = SocketChannel.open(new InetSocketAddress(hp[0], Integer.parseInt(hp[1])));
        ch.socket().setTcpNoDelay(true);
        return ch;
    }

    /** The rules; with a null {@code inPort}, they match any ingress port. */
    private static List<byte[]> flowMods(int count, OFPort inPort, OFPort outPort) {
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Match.Builder match = OF13.buildMatch().setExact(MatchField.ETH_DST, MacAddress.of(0x0a0000000000L + i));
            if (inPort != null) {
                match.setExact(MatchField.IN_PORT, inPort);
            }
            out.add(encode(OF13.buildFlowAdd().setXid(i + 1).setPriority(1).setCookie(U64.of(i))
                    .setMatch(match.build())
                    .setInstructions(List.of(OF13.instructions().applyActions(
                            List.of(OF13.actions().output(outPort, 0xffff))))).build()));
        }
        return out;
    }

    private static byte[] encode(OFMessage m) {
        ByteBuf b = Unpooled.buffer();
        m.writeTo(b);
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        return bytes;
    }

    private void handshake() throws IOException {
        write(ByteBuffer.wrap(encode(Hellos.ours(OF13))));
        readMessage();
    }

    private void eachWithBarrier(List<byte[]> flowMods) throws IOException {
        for (int i = 0; i < flowMods.size(); i++) {
            byte[] fm = flowMods.get(i);
            byte[] barrier = encode(OF13.buildBarrierRequest().setXid(1_000_000_000L + i).build());
            ByteBuffer buf = ByteBuffer.allocate(fm.length + barrier.length).put(fm).put(barrier).flip();
            write(buf);
            awaitBarrier(1_000_000_000L + i);
        }
    }

    private void streamed(List<byte[]> flowMods) throws Exception {
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            try {
                awaitBarrier(2_000_000_000L);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        ByteBuffer batch = ByteBuffer.allocate(256 * 1024);
        for (byte[] fm : flowMods) {
            if (batch.remaining() < fm.length) {
                write(batch.flip());
                batch.clear();
            }
            batch.put(fm);
        }
        batch.put(encode(OF13.buildBarrierRequest().setXid(2_000_000_000L).build()));
        write(batch.flip());
        done.get(600, TimeUnit.SECONDS);
    }

    private void write(ByteBuffer buf) throws IOException {
        synchronized (ch) {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }
    }

    /** Reads until the barrier reply with {@code xid}, answering echo requests and counting errors. */
    private void awaitBarrier(long xid) throws IOException {
        while (true) {
            ByteBuffer m = readMessage();
            int type = m.get(1) & 0xff;
            long mxid = m.getInt(4) & 0xffffffffL;
            if (type == OFPT_BARRIER_REPLY && mxid == xid) {
                return;
            } else if (type == OFPT_ERROR) {
                errors++;
            } else if (type == OFPT_ECHO_REQUEST) {
                m.put(1, (byte) 3);
                write(m.rewind());
            }
        }
    }

    /** The next whole message (a view valid until the next read). */
    private ByteBuffer readMessage() throws IOException {
        while (true) {
            in.flip();
            if (in.remaining() >= 8) {
                int len = in.getShort(in.position() + 2) & 0xffff;
                if (in.remaining() >= len) {
                    ByteBuffer msg = ByteBuffer.allocate(len);
                    for (int i = 0; i < len; i++) {
                        msg.put(in.get());
                    }
                    in.compact();
                    return msg.flip();
                }
            }
            in.compact();
            if (ch.read(in) < 0) {
                throw new IOException("connection closed");
            }
        }
    }
}
