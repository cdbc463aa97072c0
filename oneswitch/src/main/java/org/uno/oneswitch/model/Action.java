package org.uno.oneswitch.model;

import java.util.Objects;

import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;

/**
 * One OpenFlow action, split into what translation must understand (outputs, groups) and what it
 * carries through unchanged (header rewrites, push/pop, TTL, queue).
 */
public sealed interface Action permits Action.Output, Action.Group, Action.Other {

    /** Output to a port (virtual or physical depending on the rule) or a reserved port. */
    record Output(OFPort port, int maxLen) implements Action {
        public Output {
            Objects.requireNonNull(port, "port");
        }

        /** An output to a data port, where max_len does not matter. */
        public static Output to(OFPort port) {
            return new Output(port, 0xffff);
        }

        @Override
        public String toString() {
            return "output:" + port;
        }
    }

    /** Apply a group. */
    record Group(OFGroup group) implements Action {
        public Group {
            Objects.requireNonNull(group, "group");
        }

        @Override
        public String toString() {
            return "group:" + group;
        }
    }

    /** Any other action, carried through translation unchanged. */
    record Other(OFAction raw) implements Action {
        public Other {
            Objects.requireNonNull(raw, "raw");
        }

        @Override
        public String toString() {
            return raw.getType().toString().toLowerCase();
        }
    }
}
