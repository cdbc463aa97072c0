package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFBadRequestCode;

/** A request refused with OFPET_BAD_REQUEST (unsupported message or multipart type, bad length, slave, ...). */
public class BadRequestException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public BadRequestException(OFBadRequestCode code, String reason) {
        super(code, reason);
    }
}
