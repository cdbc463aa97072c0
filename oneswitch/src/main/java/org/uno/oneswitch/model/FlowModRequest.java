package org.uno.oneswitch.model;

import java.util.List;
import java.util.Objects;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.types.U64;

/**
 * A validated flow_mod on the virtual switch: the command, the selection (for modify/delete) and
 * the new entry's fields (for add/modify).
 */
public record FlowModRequest(Command command, FlowFilter filter, List<Instruction> instructions, U64 cookie,
                             Set<OFFlowModFlags> flags, int idleTimeout, int hardTimeout) {
    /** The five OpenFlow flow_mod commands. */
    public enum Command {
        ADD, MODIFY, MODIFY_STRICT, DELETE, DELETE_STRICT;

        public boolean isDelete() {
            return this == DELETE || this == DELETE_STRICT;
        }

        public boolean isStrict() {
            return this == MODIFY_STRICT || this == DELETE_STRICT;
        }
    }

    public FlowModRequest {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(filter, "filter");
        instructions = List.copyOf(instructions);
        Objects.requireNonNull(cookie, "cookie");
        flags = Set.copyOf(flags);
    }

    /** The entry an ADD installs, with id {@code id}, installed at {@code nowNanos}. */
    public VirtualRule newRule(long id, long nowNanos) {
        return VirtualRule.builder().id(id).table(filter.table()).priority(filter.priority()).match(filter.match())
                .instructions(instructions).cookie(cookie).flags(flags).idleTimeout(idleTimeout)
                .hardTimeout(hardTimeout).installedNanos(nowNanos).build();
    }
}
