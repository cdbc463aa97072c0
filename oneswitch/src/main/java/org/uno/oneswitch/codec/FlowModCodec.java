package org.uno.oneswitch.codec;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFFlowModFlags;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.error.FlowModFailedException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.Instruction;

/** Decodes and validates a flow_mod of the virtual switch into a {@link FlowModRequest}. */
public final class FlowModCodec {
    private static final Set<OFFlowModFlags> ALLOWED_FLAGS = EnumSet.of(OFFlowModFlags.SEND_FLOW_REM,
            OFFlowModFlags.CHECK_OVERLAP, OFFlowModFlags.RESET_COUNTS, OFFlowModFlags.NO_PKT_COUNTS,
            OFFlowModFlags.NO_BYT_COUNTS);

    private FlowModCodec() {
    }

    /** The request for {@code fm} on a switch with {@code tables} tables. */
    public static FlowModRequest decode(OFFlowMod fm, int tables) throws OpenFlowException {
        FlowModRequest.Command command = switch (fm.getCommand()) {
            case ADD -> FlowModRequest.Command.ADD;
            case MODIFY -> FlowModRequest.Command.MODIFY;
            case MODIFY_STRICT -> FlowModRequest.Command.MODIFY_STRICT;
            case DELETE -> FlowModRequest.Command.DELETE;
            case DELETE_STRICT -> FlowModRequest.Command.DELETE_STRICT;
            default -> throw new FlowModFailedException(OFFlowModFailedCode.BAD_COMMAND,
                    "flow_mod command " + fm.getCommand());
        };
        int table = fm.getTableId().getValue();
        boolean allTables = table == FlowFilter.ALL_TABLES;
        if (allTables ? !command.isDelete() : table >= tables) {
            throw new FlowModFailedException(OFFlowModFailedCode.BAD_TABLE_ID, "table " + table
                    + " (tables 0.." + (tables - 1) + ")");
        }
        for (OFFlowModFlags flag : fm.getFlags()) {
            if (!ALLOWED_FLAGS.contains(flag)) {
                throw new FlowModFailedException(OFFlowModFailedCode.BAD_FLAGS, "flow_mod flag " + flag);
            }
        }
        if (!command.isDelete() && !fm.getBufferId().equals(OFBufferId.NO_BUFFER)) {
            throw new BadRequestException(OFBadRequestCode.BUFFER_UNKNOWN, "buffer " + fm.getBufferId()
                    + " unknown: OneSwitch never buffers packets");
        }
        FlowMatch match = MatchCodec.decode(fm.getMatch());
        List<Instruction> instructions = command.isDelete() ? List.of()
                : InstructionCodec.decode(fm.getInstructions(), table, tables, match);
        FlowFilter filter = new FlowFilter(table, match, command.isStrict() || command == FlowModRequest.Command.ADD,
                fm.getPriority(), fm.getCookie(), fm.getCookieMask(), command.isDelete() ? fm.getOutPort()
                : org.projectfloodlight.openflow.types.OFPort.ANY, command.isDelete() ? fm.getOutGroup()
                : org.projectfloodlight.openflow.types.OFGroup.ANY);
        return new FlowModRequest(command, filter, instructions, fm.getCookie(), fm.getFlags(), fm.getIdleTimeout(),
                fm.getHardTimeout());
    }
}
