package org.uno.oneswitch.app;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.slf4j.LoggerFactory;
import org.uno.oneswitch.model.Topology;

import ch.qos.logback.classic.Level;

/**
 * Command line entry point: {@code java -jar oneswitch.jar [--config FILE] [flags]}. Logs go to
 * stderr; a bad configuration exits with status 2 and a one-line reason.
 */
public final class Main {
    private Main() {
    }

    /** What the state file holds, checked as a start would (a damaged one throws). */
    private static String checkState(Config config) throws ConfigException {
        return StateFile.load(config.stateFile().get(), config.tables()).map(l -> "; state file: " + l.records()
                + " records, " + l.state().rules().size() + " rules, " + l.state().groups().size() + " groups, "
                + l.state().ports().size() + " virtual ports" + l.tornTail().map(t -> " (a torn last record would be "
                + "dropped)").orElse("")).orElse("; no state file yet");
    }

    /**
     * Netty's pooled buffers (what clients and bridges have sent and not yet been handled, what is
     * written and not yet sent) are bounded by OneSwitch itself, so that it runs with the JVM's
     * default settings: without this, Netty may take as much direct memory as the heap's maximum
     * (a quarter of the machine's memory). An operator's own {@code -Dio.netty.maxDirectMemory} wins.
     */
    static final long NETTY_DIRECT_MEMORY = 1L << 30;

    /**
     * Netty's own settings, which an operator's {@code -D} overrides. Its direct memory is bounded
     * (above). Its check that a buffer was not released before each read and write (a volatile read of
     * the reference count, for every field OpenFlow messages are encoded from and decoded into) is off:
     * it guards against OneSwitch's own use of a released buffer, not against anything a peer sends,
     * and it took 2-6% of the event loop's samples for streamed flow_mods (JFR). Bounds checks stay on:
     * they are what stops a malformed message's lengths from reading past it.
     */
    static final Map<String, String> NETTY_PROPERTIES = Map.of(
            "io.netty.maxDirectMemory", Long.toString(NETTY_DIRECT_MEMORY),
            "io.netty.buffer.checkAccessible", "false");

    public static void main(String[] args) {
        NETTY_PROPERTIES.forEach((name, value) -> {  // before any Netty class loads
            if (System.getProperty(name) == null) {
                System.setProperty(name, value);
            }
        });
        ConfigLoader.Parsed parsed;
        Topology topology;
        try {
            parsed = ConfigLoader.load(args);
            if (parsed.help()) {
                System.out.print(ConfigLoader.usage());
                return;
            }
            Config config = parsed.config();
            ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
                    .setLevel(Level.toLevel(config.logLevel()));
            topology = config.platform().isPresent() ? PlatformLoader.load(config.platform().get()) : Topology.EMPTY;
            if (parsed.checkOnly()) {
                System.out.println("configuration OK: " + topology.switches().size() + " physical switches"
                        + (config.stateFile().isPresent() ? checkState(config) : ""));
                return;
            }
            HeapPolicy.apply();  // for the life of the process
            OneSwitch os = OneSwitch.start(config, topology);
            CountDownLatch done = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                os.close();
                done.countDown();
            }, "oneswitch-shutdown"));
            done.await();
        } catch (ConfigException e) {
            System.err.println("oneswitch: " + e.getMessage());
            System.exit(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
