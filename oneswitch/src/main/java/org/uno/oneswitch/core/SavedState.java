package org.uno.oneswitch.core;

import java.util.List;
import java.util.Map;

import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;

/**
 * What survives a OneSwitch restart: the virtual rules and groups, the port map and the flow-id tag
 * allocations (so that a restarted OneSwitch plans the very entries the switches still hold and
 * leaves them alone). Immutable; taken on the event loop, written elsewhere.
 *
 * @param rules       the virtual rules, with their ids
 * @param ageMillis   how long ago each rule (by id) was installed, for durations and hard timeouts
 * @param nextRuleId  the next rule id OneSwitch will use
 * @param groups      the virtual groups
 * @param ports       the port map
 * @param tags        flow-id tag -> the virtual ports it stands for
 * @param nextCookie  the next physical cookie number (new entries never take a cookie still in use)
 */
public record SavedState(List<VirtualRule> rules, Map<Long, Long> ageMillis, long nextRuleId,
                         List<VirtualGroup> groups, List<PortMapping> ports, Map<Integer, List<Integer>> tags,
                         long nextCookie) {
    public SavedState {
        rules = List.copyOf(rules);
        ageMillis = Map.copyOf(ageMillis);
        groups = List.copyOf(groups);
        ports = List.copyOf(ports);
        tags = Map.copyOf(tags);
    }
}
