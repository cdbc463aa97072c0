package org.uno.oneswitch.core;

import org.projectfloodlight.openflow.protocol.OFFlowRemovedReason;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.Counts;

/**
 * A virtual rule was removed, for the controllers that asked (its SEND_FLOW_REM flag): why, how long
 * it had been installed, and what it counted.
 *
 * @param rule            the rule as it was
 * @param reason          delete, idle or hard timeout, group delete
 * @param durationSeconds how long it was installed, whole seconds
 * @param durationNanos   and the nanoseconds beyond them
 * @param counts          its packets and bytes, over every physical entry and restart
 */
public record RuleRemoved(VirtualRule rule, OFFlowRemovedReason reason, long durationSeconds, long durationNanos,
                          Counts counts) {
}
