package org.uno.oneswitch.bench;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;

import org.uno.oneswitch.codec.Transport;
import org.uno.oneswitch.core.LoopWatch;
import org.uno.oneswitch.core.Timers;

/**
 * A benchmark baseline for OneSwitch's event-loop stalls: the same {@link LoopWatch} ticking on an
 * otherwise idle Netty event loop of a JVM of its own, with OneSwitch's JVM options. Run beside a
 * bulk install, it measures how late a thread that does nothing but wake every 5 ms is woken on this
 * machine under that load: the part of OneSwitch's stalls that is the machine's scheduling.
 *
 * <pre>java -cp oneswitch.jar org.uno.oneswitch.bench.TickWatch</pre>
 * Prints "ready", then on standard input's end one JSON line:
 * {"max_late_ms", "late_ms_bounds", "late_ticks"} (as OneSwitch's /v1/health "event_loop").
 */
public final class TickWatch {
    private TickWatch() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 0) {
            System.err.println("usage: TickWatch (no arguments; stop it by closing its standard input)");
            System.exit(2);
        }
        EventLoopGroup group = Transport.best().newGroup("tickwatch-loop");
        EventLoop loop = group.next();
        Timers timers = (ms, task) -> loop.schedule(task, ms, TimeUnit.MILLISECONDS);
        LoopWatch watch = new LoopWatch(System::nanoTime, timers);
        loop.execute(watch::start);
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
            // runs until its standard input closes
        }
        System.out.println(loop.submit(watch::json).sync().getNow());
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).sync();
    }
}
