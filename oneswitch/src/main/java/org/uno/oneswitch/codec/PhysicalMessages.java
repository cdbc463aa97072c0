package org.uno.oneswitch.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFGroupDescStatsEntry;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFBucket;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPacketOut;
import org.projectfloodlight.openflow.protocol.OFPortMod;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.action.OFActionGroup;
import org.projectfloodlight.openflow.protocol.action.OFActionOutput;
import org.projectfloodlight.openflow.protocol.instruction.OFInstruction;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionApplyActions;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionGotoTable;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionMeter;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionWriteActions;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionWriteMetadata;
import org.projectfloodlight.openflow.protocol.match.Match;
import org.projectfloodlight.openflow.protocol.OFMatchV3;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PhysicalPacketIn;
import org.uno.oneswitch.model.PortModRequest;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.plan.GroupChange;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalChange;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.plan.PhysicalKey;
import org.uno.oneswitch.plan.PlanChange;
import org.uno.oneswitch.translate.Layout;

/**
 * OpenFlow messages to and from the physical switches: flow_mods for plan changes, packet-outs,
 * and the flow entries a switch reports (decoded without validation: whatever is there must be
 * compared with the plan, not refused).
 */
public final class PhysicalMessages {
    /* shared by every message: a set made per message was a fifth of the bytes a flow_mod's encoding allocated */
    private static final Set<OFFlowModFlags> NO_FLAGS = Set.of();
    private static final Set<OFFlowModFlags> RESET = Set.of(OFFlowModFlags.RESET_COUNTS);

    private PhysicalMessages() {
    }

    /** The flow_mod that makes {@code change}; {@code resetCounts} clears the entry's counters. */
    public static OFFlowMod.Builder flowMod(PhysicalChange change, boolean resetCounts, OFFactory f) {
        RuleKey key = change.key().key();
        OFFlowMod.Builder b = switch (change.kind()) {
            case ADD -> f.buildFlowAdd();
            case MODIFY -> f.buildFlowModifyStrict();
            case DELETE -> f.buildFlowDeleteStrict().setCookieMask(U64.NO_MASK).setOutPort(OFPort.ANY)
                    .setOutGroup(OFGroup.ANY);
        };
        b.setTableId(TableId.of(key.table())).setPriority(key.priority()).setMatch(MatchCodec.encode(key.match(), f))
                .setCookie(change.cookie()).setBufferId(OFBufferId.NO_BUFFER).setFlags(resetCounts ? RESET : NO_FLAGS);
        if (change.kind() != PhysicalChange.Kind.DELETE) {
            b.setInstructions(InstructionCodec.encode(change.instructions(), f));
        }
        return b;
    }

    /** The message that makes {@code change}; {@code resetCounts} clears a flow entry's counters. */
    public static OFMessage.Builder message(PlanChange change, boolean resetCounts, OFFactory f) {
        return change instanceof PhysicalChange c ? flowMod(c, resetCounts, f) : groupMod((GroupChange) change, f);
    }

    /** The group_mod that makes {@code change}. */
    public static OFGroupMod.Builder groupMod(GroupChange change, OFFactory f) {
        PhysicalGroup g = change.group();
        OFGroupMod.Builder b = switch (change.kind()) {
            case ADD -> f.buildGroupAdd();
            case MODIFY -> f.buildGroupModify();
            case DELETE -> f.buildGroupDelete();
        };
        b.setGroup(OFGroup.of((int) g.groupId())).setGroupType(g.type());
        if (change.kind() != PhysicalChange.Kind.DELETE) {
            b.setBuckets(buckets(g.buckets(), f));
        }
        return b;
    }

    /** The openflowj buckets for {@code buckets}. */
    public static List<OFBucket> buckets(List<Bucket> buckets, OFFactory f) {
        List<OFBucket> out = new ArrayList<>(buckets.size());
        for (Bucket b : buckets) {
            out.add(f.buildBucket().setWeight(b.weight()).setWatchPort(b.watchPort()).setWatchGroup(b.watchGroup())
                    .setActions(InstructionCodec.encodeActions(b.actions(), f)).build());
        }
        return out;
    }

    /** A group reported by {@code switchId} in a GROUP_DESC reply, as a {@link PhysicalGroup}. */
    public static PhysicalGroup installedGroup(String switchId, OFGroupDescStatsEntry e) {
        List<Bucket> buckets = new ArrayList<>();
        for (OFBucket b : e.getBuckets()) {
            buckets.add(new Bucket(b.getWeight(), b.getWatchPort(), b.getWatchGroup(), actionsLenient(b.getActions())));
        }
        long id = Integer.toUnsignedLong(e.getGroup().getGroupNumber());
        return new PhysicalGroup(switchId, id, e.getGroupType(), buckets, Layout.tagOfGroup(id));
    }

    /** The port_mod that makes {@code change}. */
    public static OFPortMod.Builder portMod(PortModRequest change, OFFactory f) {
        return f.buildPortMod().setPortNo(change.port()).setHwAddr(change.hwAddr()).setConfig(change.config())
                .setMask(change.mask()).setAdvertise(change.advertise());
    }

    /** A packet-out of {@code data} from {@code inPort} with {@code actions}. */
    public static OFPacketOut.Builder packetOut(OFPort inPort, List<Action> actions, byte[] data, OFFactory f) {
        return f.buildPacketOut().setBufferId(OFBufferId.NO_BUFFER).setInPort(inPort)
                .setActions(InstructionCodec.encodeActions(actions, f)).setData(data);
    }

    /** A packet-in from a physical switch. */
    public static PhysicalPacketIn packetIn(OFPacketIn pi) {
        FlowMatch match = pi.getMatch() instanceof OFMatchV3 v3 ? FlowMatch.of(v3.getOxmList()) : FlowMatch.ANY;
        return new PhysicalPacketIn(pi.getReason(), pi.getTableId().getValue(), pi.getCookie(), match,
                pi.getTotalLen(), pi.getData());
    }

    /** A flow entry reported by {@code switchId}, as an {@link InstalledEntry}. */
    public static InstalledEntry installed(String switchId, OFFlowStatsEntry e) {
        Match m = e.getMatch();
        FlowMatch match = m instanceof OFMatchV3 v3 ? FlowMatch.of(v3.getOxmList()) : FlowMatch.ANY;
        RuleKey key = new RuleKey(e.getTableId().getValue(), e.getPriority(), match);
        List<Instruction> instructions = decodeLenient(e.getInstructions());
        if (instructions == null) {
            // Something OneSwitch never installs: report it with cookie 0 so it equals no planned entry.
            return new InstalledEntry(new PhysicalKey(switchId, key), List.of(), U64.ZERO);
        }
        return new InstalledEntry(new PhysicalKey(switchId, key), instructions, e.getCookie());
    }

    /** The instructions, or null when one of them is of a kind OneSwitch never installs. */
    private static List<Instruction> decodeLenient(List<OFInstruction> instructions) {
        List<Instruction> out = new ArrayList<>();
        for (OFInstruction ins : instructions) {
            if (ins instanceof OFInstructionApplyActions a) {
                out.add(new Instruction.ApplyActions(actionsLenient(a.getActions())));
            } else if (ins instanceof OFInstructionWriteActions w) {
                out.add(new Instruction.WriteActions(actionsLenient(w.getActions())));
            } else if (ins instanceof OFInstructionGotoTable g) {
                out.add(new Instruction.GotoTable(g.getTableId().getValue()));
            } else if (ins instanceof OFInstructionWriteMetadata m) {
                out.add(new Instruction.WriteMetadata(m.getMetadata(), m.getMetadataMask()));
            } else if (ins instanceof OFInstructionMeter m) {
                out.add(new Instruction.Meter(m.getMeterId()));
            } else if (ins.getType() == org.projectfloodlight.openflow.protocol.OFInstructionType.CLEAR_ACTIONS) {
                out.add(new Instruction.ClearActions());
            } else {
                return null;
            }
        }
        return out;
    }

    private static List<Action> actionsLenient(List<OFAction> actions) {
        List<Action> out = new ArrayList<>(actions.size());
        for (OFAction a : actions) {
            if (a instanceof OFActionOutput o) {
                out.add(new Action.Output(o.getPort(), o.getMaxLen()));
            } else if (a instanceof OFActionGroup g) {
                out.add(new Action.Group(g.getGroup()));
            } else {
                out.add(new Action.Other(a));
            }
        }
        return out;
    }
}
