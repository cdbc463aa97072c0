package org.uno.oneswitch.core;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;

/**
 * Checks, each time a switch connects, that the PCIe links carry OneSwitch's drain markers both ways
 * between it and every other connected switch, once its entries are in place: what a remap's drain
 * and a migration's release wait for works, and the dispatch entries that hand markers back are
 * there. The result is in {@code /v1/health}. It also makes the first drain of a migration as quick
 * as the later ones: on a fresh OneSwitch the first markers took 85 ms where the later ones took 1-3
 * (the code on their way runs for the first time).
 */
public final class LinkCheck {
    private static final Logger LOG = LoggerFactory.getLogger(LinkCheck.class);
    static final long TIMEOUT_MS = 1000;

    /** A check of a switch's links with {@code others}: whether every marker came back, how long it took, when. */
    public record Result(List<String> others, boolean ok, double elapsedMillis, long atMillis) {
    }

    private final Topology topology;
    private final PhysicalNetwork net;
    private final Drains drains;
    private final LongSupplier wallMillis;
    private final Map<String, Result> last = new TreeMap<>();

    LinkCheck(Topology topology, PhysicalNetwork net, Drains drains, LongSupplier wallMillis) {
        this.topology = topology;
        this.net = net;
        this.drains = drains;
        this.wallMillis = wallMillis;
    }

    /**
     * Sends markers from {@code switchId} to every other connected switch and from them to it, after a
     * barrier on every switch (the entries just sent for its reconciliation come first); nothing when no
     * other switch is connected. The result is recorded when every marker is back or timed out.
     */
    void check(String switchId) {
        List<String> others = topology.switches().stream().map(SwitchSpec::id)
                .filter(s -> !s.equals(switchId) && net.connected(s)).toList();
        if (others.isEmpty() || !net.connected(switchId)) {
            return;
        }
        long start = System.nanoTime();
        net.barrier().handle((v, t) -> null)
                .thenCompose(v -> drains.from(switchId, TIMEOUT_MS)
                        .thenCombine(drains.toward(switchId, TIMEOUT_MS), Boolean::logicalAnd))
                .thenAccept(ok -> {
                    Result r = new Result(others, ok, (System.nanoTime() - start) / 1e6, wallMillis.getAsLong());
                    last.put(switchId, r);
                    if (ok) {
                        LOG.info("the links between {} and {} carry markers both ways ({} ms)", switchId, others,
                                String.format("%.1f", r.elapsedMillis()));
                    } else {
                        LOG.warn("a drain marker between {} and {} did not come back within {} ms (remaps' drains "
                                + "and migrations' releases wait for such markers)", switchId, others, TIMEOUT_MS);
                    }
                });
    }

    /** The latest check of each switch that had one, in switch id order. */
    public Map<String, Result> results() {
        return Collections.unmodifiableMap(new TreeMap<>(last));
    }
}
