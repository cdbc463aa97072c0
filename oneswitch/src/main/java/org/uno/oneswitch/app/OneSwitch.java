package org.uno.oneswitch.app;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.Transport;
import org.uno.oneswitch.core.LoopWatch;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.core.Timers;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.endpoint.Northbound;
import org.uno.oneswitch.error.PortMapException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.rest.RestApi;
import org.uno.oneswitch.rest.RestServer;
import org.uno.oneswitch.south.PhysicalSwitches;
import org.uno.oneswitch.south.SouthboundTls;

/**
 * A running OneSwitch: one event loop thread for all OpenFlow connections and state, the
 * southbound listener, the northbound listener and controller connections, the REST server and
 * the timeout tick. Built from a {@link Config}; {@link #close()} stops everything.
 */
public final class OneSwitch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OneSwitch.class);
    /** Echo probes without answer after which an OpenFlow connection is closed. */
    private static final int MAX_IDLE_PROBES = 3;
    private static final long SWITCH_POLL_MS = 20;
    private static final String VERSION = "0.1.0";

    private final Transport transport = Transport.best();
    private final EventLoopGroup group = transport.newGroup("oneswitch-loop");
    private final EventLoop loop = group.next();
    private final PhysicalSwitches physical;
    private final Northbound north;
    private final VirtualSwitch vs;
    private RestServer rest;
    private StateWriter state;
    private Path stateFile;

    private OneSwitch(Config config, Topology topology) {
        physical = new PhysicalSwitches(topology);
        north = new Northbound(group, transport, new Northbound.Limits(config.echoIntervalSec(), MAX_IDLE_PROBES,
                config.backlogLimit(), config.maxPassive(), Northbound.Limits.TURN_NANOS));
        vs = new VirtualSwitch(config.datapathId(), config.tables(), topology, physical, north.notifier(),
                System::nanoTime, (ms, task) -> loop.schedule(task, ms, TimeUnit.MILLISECONDS), config.remapGraceMs(),
                config.maxRules());
        physical.setEvents(vs);
        north.serve(vs, physical, new Northbound.Identity("UNO", "OneSwitch virtual switch",
                "OneSwitch " + VERSION, "None", "OneSwitch " + config.datapathId()));
    }

    /** Starts OneSwitch as configured; throws with a reason when a listener cannot bind. */
    public static OneSwitch start(Config config, Topology topology) throws ConfigException {
        OneSwitch os = new OneSwitch(config, topology);
        try {
            os.run(config);
            return os;
        } catch (ConfigException e) {
            os.close();
            throw e;
        } catch (IOException | InterruptedException | ExecutionException e) {
            os.close();
            throw new ConfigException("cannot start: " + e.getMessage(), e);
        }
    }

    private void run(Config config) throws ConfigException, IOException, InterruptedException, ExecutionException {
        Optional<StateFile.Loaded> saved = config.stateFile().isPresent()
                ? StateFile.load(config.stateFile().get(), config.tables()) : Optional.empty();
        saved.flatMap(StateFile.Loaded::tornTail).ifPresent(torn -> LOG.warn("state file {}: dropped its torn last "
                + "record, a write a crash cut short (never acknowledged): {}", config.stateFile().get(), torn));
        Optional<ConfigException> mapError = loop.submit(() -> saved.isPresent() ? restore(saved.get().state())
                : autoMap(config)).get();
        if (mapError.isPresent()) {
            throw mapError.get();
        }
        if (config.stateFile().isPresent()) {
            startStateFile(config.stateFile().get());
        }
        if (config.commandSockets() && transport.unixSockets()) {
            physical.openCommandChannels(group, transport, config.echoIntervalSec(), MAX_IDLE_PROBES);
        }
        Optional<SouthboundTls> tls = southboundTls(config, vs.topology());
        if (tls.isPresent()) {
            physical.reachSnicDaemons(group, transport, tls.get());
        } else if (vs.topology().switches().stream().anyMatch(s -> s.snicDaemon().isPresent())) {
            LOG.warn("without SSL on the southbound, OneSwitch cannot reach the sNIC daemons: remaps settle those "
                    + "sNICs with a barrier only, not a purge of their cached datapath flows");
        }
        bind("southbound", () -> physical.listen(group, transport, config.southbound(), tls,
                config.echoIntervalSec(), MAX_IDLE_PROBES));
        Timers timers = (ms, task) -> loop.schedule(task, ms, TimeUnit.MILLISECONDS);
        LoopWatch watch = new LoopWatch(System::nanoTime, timers);
        loop.execute(watch::start);
        if (config.rest().isPresent()) {
            RestApi api = new RestApi(vs, physical::connected, north::connectedControllers, timers, watch);
            bind("REST", () -> {
                rest = RestServer.start(config.rest().get(), loop, transport, api, config.restLimits());
                return rest.address();
            });
        }
        if (config.listen().isPresent()) {
            bind("listen", () -> north.listen(config.listen().get()));
        }
        awaitSwitches(config.switchWaitMs());
        north.open();
        for (InetSocketAddress c : config.controllers()) {
            north.connect(c, config.maxBackoffMs());
        }
        loop.scheduleAtFixedRate(() -> vs.gate().whenOpen(vs.flows()::tick), 1, 1, TimeUnit.SECONDS);
        LOG.info("OneSwitch {} up ({}): datapath {}, {} tables, {} virtual ports, switches {}", VERSION, transport,
                vs.datapathId(), vs.tables(), vs.ports().current().size(),
                vs.topology().switches().stream().map(s -> s.id()).toList());
    }

    /**
     * Writes the state now as the state file's first snapshot (dropping a torn tail, proving the
     * directory writable) and logs every change from then on; refuses to start when it cannot.
     */
    private void startStateFile(Path file) throws ConfigException, InterruptedException, ExecutionException {
        stateFile = file;
        state = StateWriter.open(file, loop, () -> vs.state().snapshotWanted());
        try {
            loop.submit(() -> vs.state().start(state)).get().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            state.close();
            state = null;
            throw new ConfigException("cannot write state file " + file + ": " + cause);
        }
        LOG.info("state file {}: every change is on disk before it is acknowledged", file);
    }

    /**
     * Waits, at most {@code maxMs}, until every switch of the description is connected with its ports
     * read, so that no controller is shown a port down that is not (controller connections begin their
     * handshake after).
     */
    private void awaitSwitches(long maxMs) throws InterruptedException, ExecutionException {
        long deadline = System.nanoTime() + maxMs * 1_000_000;
        while (!loop.submit(() -> vs.topology().switches().stream().allMatch(s -> physical.connected(s.id())))
                .get()) {
            if (System.nanoTime() >= deadline) {
                LOG.warn("not every switch connected within {} ms: controllers see the ports of those missing as down "
                        + "until they connect", maxMs);
                return;
            }
            Thread.sleep(SWITCH_POLL_MS);
        }
    }

    private static Optional<SouthboundTls> southboundTls(Config config, Topology topology) throws ConfigException {
        if (config.southboundSsl().isEmpty()) {
            return Optional.empty();
        }
        Config.SslFiles f = config.southboundSsl().get();
        try {
            return Optional.of(SouthboundTls.load(f.privateKey(), f.certificate(), f.caCert(), topology));
        } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
            throw new ConfigException("southbound SSL: " + e.getMessage());
        }
    }

    private Optional<ConfigException> restore(SavedState saved) {
        try {
            vs.restore(saved, System.nanoTime(), System.currentTimeMillis());
            return Optional.empty();
        } catch (TranslationConflictException | IllegalArgumentException e) {
            return Optional.of(new ConfigException("the saved state cannot be restored: " + e.getMessage()));
        }
    }

    private Optional<ConfigException> autoMap(Config config) {
        try {
            vs.ports().autoMap(config.autoMap());
            return Optional.empty();
        } catch (PortMapException | TranslationConflictException e) {
            return Optional.of(new ConfigException("auto_map: " + e.getMessage()));
        }
    }

    /** Writes a last snapshot, with the counters the switches report now. */
    private void saveLast() {
        try {
            loop.submit(() -> vs.state().close()).get(5, TimeUnit.SECONDS).get(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            LOG.error("state file {}: last snapshot not written: {}", stateFile, e.getCause() != null ? e.getCause() : e);
        }
    }

    private interface Binder {
        InetSocketAddress bind() throws InterruptedException;
    }

    private static InetSocketAddress bind(String what, Binder b) throws ConfigException, InterruptedException {
        try {
            return b.bind();
        } catch (RuntimeException e) {
            throw new ConfigException("cannot bind " + what + " listener: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (rest != null) {
            rest.stop();
        }
        north.stop();
        if (state != null) {
            saveLast();
        }
        loop.execute(physical::stop);
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        if (state != null) {
            state.close();
        }
    }
}
