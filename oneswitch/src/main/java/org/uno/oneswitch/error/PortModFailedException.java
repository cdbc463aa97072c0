package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFPortModFailedCode;

/** A PORT_MOD refused (unknown virtual port, wrong hardware address). */
public class PortModFailedException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public PortModFailedException(OFPortModFailedCode code, String reason) {
        super(code, reason);
    }
}
