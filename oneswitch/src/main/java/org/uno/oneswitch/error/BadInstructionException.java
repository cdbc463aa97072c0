package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFBadInstructionCode;

/** An instruction refused with OFPET_BAD_INSTRUCTION. */
public class BadInstructionException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public BadInstructionException(OFBadInstructionCode code, String reason) {
        super(code, reason);
    }
}
