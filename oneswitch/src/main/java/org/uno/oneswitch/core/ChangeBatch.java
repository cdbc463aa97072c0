package org.uno.oneswitch.core;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;

/**
 * One record of the state file's journal: what changed in the persistent state since the previous
 * record, as the values now (a rule added and removed again in between is not in it). Committed
 * as a whole: written, then made durable, and only then acknowledged. Immutable.
 *
 * @param seq           this record's number (the previous one's plus one; a snapshot has the number of the
 *                      last record it contains)
 * @param rules         rules added or changed, as they are now
 * @param removedRules  ids of rules removed
 * @param groups        groups added or changed
 * @param removedGroups ids of groups removed
 * @param meters        meters added or changed
 * @param removedMeters ids of meters removed
 * @param portMap       the port map, when it changed
 * @param tags          the flow-id tag allocations, when they changed
 * @param nextRuleId    the next rule id
 * @param nextCookie    the next physical cookie number
 * @param nanos         the virtual switch's clock when the record was made (rules' install times are on it)
 * @param wallMillis    the wall clock at the same moment
 */
public record ChangeBatch(long seq, List<VirtualRule> rules, List<Long> removedRules, List<VirtualGroup> groups,
                          List<Long> removedGroups, List<VirtualMeter> meters, List<Long> removedMeters,
                          Optional<PortMap> portMap, Optional<Map<Integer, List<Integer>>> tags,
                          long nextRuleId, long nextCookie, long nanos, long wallMillis) {
    public ChangeBatch {
        rules = List.copyOf(rules);
        removedRules = List.copyOf(removedRules);
        groups = List.copyOf(groups);
        removedGroups = List.copyOf(removedGroups);
        meters = List.copyOf(meters);
        removedMeters = List.copyOf(removedMeters);
    }

    /** When {@code r} was installed, in wall-clock milliseconds. */
    public long installedMillis(VirtualRule r) {
        return wallMillis - Math.max(0, nanos - r.installedNanos()) / 1_000_000;
    }
}
