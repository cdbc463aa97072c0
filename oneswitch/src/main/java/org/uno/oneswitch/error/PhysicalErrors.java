package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadActionErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadInstructionErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadMatchErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFBadRequestErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFFlowModFailedErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFGroupModFailedErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFMeterModFailedErrorMsg;
import org.projectfloodlight.openflow.protocol.errormsg.OFPortModFailedErrorMsg;

/**
 * Turns an error a physical switch returned into the refusal the controller gets for its virtual
 * request: same type and code, but answered with the virtual request's xid and bytes (never the
 * physical message, which would show physical port numbers).
 */
public final class PhysicalErrors {
    private PhysicalErrors() {
    }

    public static OpenFlowException toVirtual(String switchId, OFErrorMsg e) {
        String reason = "physical switch " + switchId + " refused it: " + e.getErrType();
        if (e instanceof OFFlowModFailedErrorMsg x) {
            return new FlowModFailedException(x.getCode(), reason);
        } else if (e instanceof OFBadActionErrorMsg x) {
            return new BadActionException(x.getCode(), reason);
        } else if (e instanceof OFBadInstructionErrorMsg x) {
            return new BadInstructionException(x.getCode(), reason);
        } else if (e instanceof OFBadMatchErrorMsg x) {
            return new BadMatchException(x.getCode(), reason);
        } else if (e instanceof OFBadRequestErrorMsg x) {
            return new BadRequestException(x.getCode(), reason);
        } else if (e instanceof OFGroupModFailedErrorMsg x) {
            return new GroupModFailedException(x.getCode(), reason);
        } else if (e instanceof OFMeterModFailedErrorMsg x) {
            return new MeterModFailedException(x.getCode(), reason);
        } else if (e instanceof OFPortModFailedErrorMsg x) {
            return new PortModFailedException(x.getCode(), reason);
        }
        return new BadRequestException(OFBadRequestCode.EPERM, reason);
    }
}
