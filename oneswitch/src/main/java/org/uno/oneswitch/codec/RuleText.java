package org.uno.oneswitch.codec;

import java.util.List;
import java.util.stream.Collectors;

import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.action.OFActionNiciraMove;
import org.projectfloodlight.openflow.protocol.action.OFActionNiciraResubmitTable;
import org.projectfloodlight.openflow.protocol.action.OFActionOutput;
import org.projectfloodlight.openflow.protocol.action.OFActionPopMpls;
import org.projectfloodlight.openflow.protocol.action.OFActionPushMpls;
import org.projectfloodlight.openflow.protocol.action.OFActionPushVlan;
import org.projectfloodlight.openflow.protocol.action.OFActionSetField;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.translate.Layout;
import org.uno.oneswitch.translate.SealedAction;

/**
 * Short readable text for instructions, actions and buckets, in the spirit of ovs-ofctl
 * ({@code output:2,set_field:1.1.1.1->ipv4_src goto_table:3}); used by the explain view, logs and
 * golden files. Port numbers are printed as they are (virtual or physical).
 */
public final class RuleText {
    private RuleText() {
    }

    public static String instructions(List<Instruction> ins) {
        if (ins.isEmpty()) {
            return "drop";
        }
        return ins.stream().map(RuleText::instruction).collect(Collectors.joining(" "));
    }

    public static String actions(List<Action> actions) {
        return actions.isEmpty() ? "drop" : actions.stream().map(RuleText::action).collect(Collectors.joining(","));
    }

    public static String bucket(Bucket b) {
        StringBuilder sb = new StringBuilder("bucket(");
        if (b.weight() != 0) {
            sb.append("weight=").append(b.weight()).append(',');
        }
        if (!b.watchPort().equals(OFPort.ANY)) {
            sb.append("watch_port=").append(b.watchPort()).append(',');
        }
        if (!b.watchGroup().equals(OFGroup.ANY)) {
            sb.append("watch_group=").append(b.watchGroup()).append(',');
        }
        return sb.append(actions(b.actions())).append(')').toString();
    }

    private static String instruction(Instruction i) {
        if (i instanceof Instruction.ApplyActions a) {
            return actions(a.actions());
        } else if (i instanceof Instruction.WriteActions w) {
            return "write_actions(" + actions(w.actions()) + ")";
        } else if (i instanceof Instruction.ClearActions) {
            return "clear_actions";
        } else if (i instanceof Instruction.GotoTable g) {
            return "goto_table:" + g.table();
        } else if (i instanceof Instruction.WriteMetadata m) {
            return "write_metadata:" + m.value() + "/" + m.mask();
        } else if (i instanceof Instruction.Meter m) {
            return "meter:" + m.meterId();
        }
        return i.toString();
    }

    /** The name of the field with OXM header {@code header}: those OneSwitch moves between, else the header in hex. */
    private static String field(long header) {
        if (header == Layout.OXM_REG6) {
            return "reg6";
        } else if (header == Layout.OXM_MPLS_LABEL) {
            return "mpls_label";
        } else if (header == Layout.OXM_TUNNEL_ID) {
            return "tunnel_id";
        }
        return "0x" + Long.toHexString(header);
    }

    private static String action(Action a) {
        if (a instanceof Action.Output o) {
            return "output:" + o.port();
        } else if (a instanceof Action.Group g) {
            return "group:" + Integer.toUnsignedString(g.group().getGroupNumber());
        }
        return raw(((Action.Other) a).raw());
    }

    private static String raw(OFAction raw) {
        if (raw instanceof OFActionOutput o) {
            return "output:" + o.getPort();
        } else if (raw instanceof SealedAction e) {
            return e.nested().isEmpty() ? e.text()
                    : "clone(" + e.nested().stream().map(RuleText::raw).collect(Collectors.joining(",")) + ")";
        } else if (raw instanceof OFActionSetField sf) {
            return "set_field:" + sf.getField().getValue() + "->" + sf.getField().getMatchField().getName();
        } else if (raw instanceof OFActionPushVlan p) {
            return "push_vlan:" + p.getEthertype();
        } else if (raw instanceof OFActionPushMpls p) {
            return "push_mpls:" + p.getEthertype();
        } else if (raw instanceof OFActionPopMpls p) {
            return "pop_mpls:" + p.getEthertype();
        } else if (raw instanceof OFActionNiciraResubmitTable r) {
            return "resubmit(," + r.getTable() + ")";
        } else if (raw instanceof OFActionNiciraMove m) {
            return "move:" + field(m.getSrc()) + "[" + m.getSrcOfs() + ".." + (m.getSrcOfs() + m.getNBits() - 1)
                    + "]->" + field(m.getDst()) + "[" + m.getDstOfs() + ".." + (m.getDstOfs() + m.getNBits() - 1) + "]";
        }
        return raw.getType().toString().toLowerCase();
    }
}
