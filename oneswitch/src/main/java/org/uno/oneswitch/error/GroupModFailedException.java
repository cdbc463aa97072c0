package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFGroupModFailedCode;

/** A group_mod refused with OFPET_GROUP_MOD_FAILED. */
public class GroupModFailedException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public GroupModFailedException(OFGroupModFailedCode code, String reason) {
        super(code, reason);
    }
}
