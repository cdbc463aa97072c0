package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFBadMatchCode;

/** A match refused with OFPET_BAD_MATCH. */
public class BadMatchException extends OpenFlowException {
    public BadMatchException(OFBadMatchCode code, String reason) {
        super(code, reason);
    }
}
