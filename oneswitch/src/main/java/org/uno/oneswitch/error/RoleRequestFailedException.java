package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFRoleRequestFailedCode;

/** A ROLE_REQUEST refused (stale generation id, bad role). */
public class RoleRequestFailedException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public RoleRequestFailedException(OFRoleRequestFailedCode code, String reason) {
        super(code, reason);
    }
}
