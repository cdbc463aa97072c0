package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFBadActionCode;

/** An action list refused with OFPET_BAD_ACTION. */
public class BadActionException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public BadActionException(OFBadActionCode code, String reason) {
        super(code, reason);
    }
}
