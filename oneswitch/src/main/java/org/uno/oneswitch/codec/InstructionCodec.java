package org.uno.oneswitch.codec;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFBadActionCode;
import org.projectfloodlight.openflow.protocol.OFBadInstructionCode;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFInstructionType;
import org.projectfloodlight.openflow.protocol.action.OFAction;
import org.projectfloodlight.openflow.protocol.action.OFActionGroup;
import org.projectfloodlight.openflow.protocol.action.OFActionOutput;
import org.projectfloodlight.openflow.protocol.action.OFActionSetField;
import org.projectfloodlight.openflow.protocol.instruction.OFInstruction;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionApplyActions;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionGotoTable;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionMeter;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionWriteActions;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionWriteMetadata;
import org.projectfloodlight.openflow.protocol.match.MatchFields;
import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.BadInstructionException;
import org.uno.oneswitch.error.BadMatchException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortNumbers;

/**
 * Converts between openflowj instructions/actions and the {@link Instruction}/{@link Action} model,
 * refusing what an OpenFlow 1.3 switch refuses: duplicate instructions, goto_table backwards or
 * past the last table, experimenter instructions and actions, set_field on fields that cannot be
 * set or whose prerequisites the match does not guarantee, output to port 0.
 */
public final class InstructionCodec {
    /** Fields whose prerequisites push actions can establish, so the match need not. */
    private static final Set<MatchFields> PUSHABLE = EnumSet.of(MatchFields.VLAN_VID, MatchFields.VLAN_PCP,
            MatchFields.MPLS_LABEL, MatchFields.MPLS_TC, MatchFields.MPLS_BOS);

    private InstructionCodec() {
    }

    /**
     * The instructions of a flow_mod in table {@code table} of a switch with {@code tables} tables,
     * validated against {@code match}.
     */
    public static List<Instruction> decode(List<OFInstruction> instructions, int table, int tables, FlowMatch match)
            throws OpenFlowException {
        Set<OFInstructionType> seen = EnumSet.noneOf(OFInstructionType.class);
        List<Instruction> out = new ArrayList<>(instructions.size());
        for (OFInstruction ins : instructions) {
            if (!seen.add(ins.getType())) {
                // DUP_INST is OpenFlow 1.4's code and cannot be sent on a 1.3 connection (Open vSwitch sends
                // an ONF experimenter error there, which openflowj cannot encode): the nearest 1.3 code.
                throw new BadInstructionException(OFBadInstructionCode.UNSUP_INST, "instruction " + ins.getType()
                        + " appears twice");
            }
            out.add(decode(ins, table, tables, match));
        }
        return out;
    }

    private static Instruction decode(OFInstruction ins, int table, int tables, FlowMatch match)
            throws OpenFlowException {
        switch (ins.getType()) {
            case APPLY_ACTIONS:
                return new Instruction.ApplyActions(decodeActions(((OFInstructionApplyActions) ins).getActions(), match));
            case WRITE_ACTIONS:
                return new Instruction.WriteActions(decodeActions(((OFInstructionWriteActions) ins).getActions(), match));
            case CLEAR_ACTIONS:
                return new Instruction.ClearActions();
            case GOTO_TABLE:
                int next = ((OFInstructionGotoTable) ins).getTableId().getValue();
                if (next <= table || next >= tables) {
                    throw new BadInstructionException(OFBadInstructionCode.BAD_TABLE_ID, "goto_table:" + next
                            + " from table " + table + " (tables 0.." + (tables - 1) + ")");
                }
                return new Instruction.GotoTable(next);
            case WRITE_METADATA:
                OFInstructionWriteMetadata wm = (OFInstructionWriteMetadata) ins;
                return new Instruction.WriteMetadata(wm.getMetadata(), wm.getMetadataMask());
            case METER:
                return new Instruction.Meter(((OFInstructionMeter) ins).getMeterId());
            default:
                throw new BadInstructionException(OFBadInstructionCode.UNSUP_EXP_INST,
                        "instruction " + ins.getType() + " is not supported");
        }
    }

    /** The actions of an action list; {@code match} (null for packet-out) guards set_field prerequisites. */
    public static List<Action> decodeActions(List<OFAction> actions, FlowMatch match) throws OpenFlowException {
        List<Action> out = new ArrayList<>(actions.size());
        boolean pushed = false;
        for (OFAction a : actions) {
            switch (a.getType()) {
                case OUTPUT -> {
                    OFActionOutput o = (OFActionOutput) a;
                    if (!PortNumbers.isOutput(o.getPort())) {
                        throw new BadActionException(OFBadActionCode.BAD_OUT_PORT, "output to " + o.getPort()
                                + " (ports are 0 to " + PortNumbers.MAX + " and the reserved ones but ANY)");
                    }
                    out.add(new Action.Output(o.getPort(), o.getMaxLen()));
                }
                case GROUP -> out.add(new Action.Group(((OFActionGroup) a).getGroup()));
                case SET_FIELD -> {
                    checkSetField(((OFActionSetField) a).getField(), match, pushed);
                    out.add(new Action.Other(a));
                }
                case PUSH_VLAN, PUSH_MPLS -> {
                    pushed = true;
                    out.add(new Action.Other(a));
                }
                case EXPERIMENTER -> throw new BadActionException(OFBadActionCode.BAD_EXPERIMENTER,
                        "experimenter actions are not supported");
                default -> out.add(new Action.Other(a));
            }
        }
        return out;
    }

    private static void checkSetField(OFOxm<?> field, FlowMatch match, boolean pushed) throws BadActionException {
        MatchFields f = field.getMatchField().id;
        if (!MatchCodec.settableFields().contains(f) || field.isMasked()) {
            throw new BadActionException(OFBadActionCode.BAD_SET_TYPE, "set_field on " + f + " is not supported");
        }
        if (match == null || (pushed && PUSHABLE.contains(f))) {
            return;
        }
        try {
            MatchCodec.checkPrerequisite(match, f);
        } catch (BadMatchException e) {
            throw new BadActionException(OFBadActionCode.MATCH_INCONSISTENT, "set_field on " + f
                    + " does not fit the match: " + e.getMessage());
        }
    }

    /** The openflowj instructions for {@code instructions}. */
    public static List<OFInstruction> encode(List<Instruction> instructions, OFFactory f) {
        List<OFInstruction> out = new ArrayList<>(instructions.size());
        for (Instruction ins : instructions) {
            if (ins instanceof Instruction.ApplyActions a) {
                out.add(f.instructions().applyActions(encodeActions(a.actions(), f)));
            } else if (ins instanceof Instruction.WriteActions w) {
                out.add(f.instructions().writeActions(encodeActions(w.actions(), f)));
            } else if (ins instanceof Instruction.ClearActions) {
                out.add(f.instructions().clearActions());
            } else if (ins instanceof Instruction.GotoTable g) {
                out.add(f.instructions().gotoTable(TableId.of(g.table())));
            } else if (ins instanceof Instruction.WriteMetadata m) {
                out.add(f.instructions().writeMetadata(m.value(), m.mask()));
            } else if (ins instanceof Instruction.Meter m) {
                out.add(f.instructions().meter(m.meterId()));
            }
        }
        return out;
    }

    /** The openflowj actions for {@code actions}. */
    public static List<OFAction> encodeActions(List<Action> actions, OFFactory f) {
        List<OFAction> out = new ArrayList<>(actions.size());
        for (Action a : actions) {
            if (a instanceof Action.Output o) {
                out.add(f.actions().output(o.port(), o.maxLen()));
            } else if (a instanceof Action.Group g) {
                out.add(f.actions().group(g.group()));
            } else if (a instanceof Action.Other x) {
                out.add(x.raw());
            }
        }
        return out;
    }
}
