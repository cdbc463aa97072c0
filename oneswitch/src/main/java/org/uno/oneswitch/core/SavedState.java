package org.uno.oneswitch.core;

import java.util.List;
import java.util.Map;

import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;

/**
 * What survives a OneSwitch restart: the virtual rules, groups and meters, the port map and the flow-id tag
 * allocations (so that a restarted OneSwitch plans the very entries the switches still hold and
 * leaves them alone), and the rules' counters when they were read. Immutable; taken on the event
 * loop, written elsewhere.
 *
 * @param rules           the virtual rules, with their ids
 * @param installedMillis when each rule (by id) was installed, wall-clock milliseconds since the epoch (a
 *                        restart keeps durations and hard timeouts, and counts the time OneSwitch was down,
 *                        during which the switches kept the rules)
 * @param nextRuleId      the next rule id OneSwitch will use
 * @param groups          the virtual groups
 * @param meters          the virtual meters
 * @param ports           the port map
 * @param tags            flow-id tag -> the virtual ports it stands for
 * @param nextCookie      the next physical cookie number (new entries never take a cookie still in use)
 * @param counters        each rule's counters (by id; absent: none known)
 */
public record SavedState(List<VirtualRule> rules, Map<Long, Long> installedMillis, long nextRuleId,
                         List<VirtualGroup> groups, List<VirtualMeter> meters, List<PortMapping> ports, Map<Integer, List<Integer>> tags,
                         long nextCookie, Map<Long, RuleCounters> counters) {
    public SavedState {
        rules = List.copyOf(rules);
        installedMillis = Map.copyOf(installedMillis);
        groups = List.copyOf(groups);
        meters = List.copyOf(meters);
        ports = List.copyOf(ports);
        tags = Map.copyOf(tags);
        counters = Map.copyOf(counters);
    }

    /** The same state with {@code counts} as the rules' counters. */
    public SavedState withCounters(Map<Long, RuleCounters> counts) {
        return new SavedState(rules, installedMillis, nextRuleId, groups, meters, ports, tags, nextCookie, counts);
    }
}
