package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFBadMatchCode;

/** A match refused with OFPET_BAD_MATCH. */
public class BadMatchException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public BadMatchException(OFBadMatchCode code, String reason) {
        super(code, reason);
    }
}
