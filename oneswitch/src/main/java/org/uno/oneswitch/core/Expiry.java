package org.uno.oneswitch.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.projectfloodlight.openflow.protocol.OFFlowRemovedReason;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.Counts;

/**
 * Idle and hard timeouts of virtual rules, decided from the rules' packet counters and the time
 * passed in (no clock of its own). The physical entries carry no timeouts: a virtual rule spread
 * over several entries is idle only when all of them are, which no single switch can know.
 *
 * <p>Invariant: a rule's activity is the last time its packet count was seen to change, starting
 * at its installation.
 */
final class Expiry {
    /** A rule that expired and why. */
    record Expired(VirtualRule rule, OFFlowRemovedReason reason) {
    }

    private record Activity(long packets, long sinceNanos) {
    }

    private final Map<Long, Activity> activity = new HashMap<>();

    /** The rules with a hard timeout that passed at {@code nowNanos}. */
    static List<Expired> hard(Collection<VirtualRule> rules, long nowNanos) {
        List<Expired> out = new ArrayList<>();
        for (VirtualRule r : rules) {
            if (r.hardTimeout() > 0 && nowNanos - r.installedNanos() >= r.hardTimeout() * 1_000_000_000L) {
                out.add(new Expired(r, OFFlowRemovedReason.HARD_TIMEOUT));
            }
        }
        return out;
    }

    /**
     * Records the packet counts of rules with an idle timeout seen at {@code nowNanos} and returns
     * those idle for their timeout.
     */
    List<Expired> idle(Collection<VirtualRule> rules, Map<Long, Counts> counts, long nowNanos) {
        List<Expired> out = new ArrayList<>();
        for (VirtualRule r : rules) {
            long packets = counts.getOrDefault(r.id(), Counts.ZERO).packets();
            Activity a = activity.get(r.id());
            if (a == null || a.sinceNanos() < r.installedNanos()) {
                a = new Activity(packets, r.installedNanos());
            }
            if (packets != a.packets()) {
                a = new Activity(packets, nowNanos);
            }
            activity.put(r.id(), a);
            if (nowNanos - a.sinceNanos() >= r.idleTimeout() * 1_000_000_000L) {
                out.add(new Expired(r, OFFlowRemovedReason.IDLE_TIMEOUT));
            }
        }
        return out;
    }

    /** Forgets a removed rule. */
    void forget(long ruleId) {
        activity.remove(ruleId);
    }
}
