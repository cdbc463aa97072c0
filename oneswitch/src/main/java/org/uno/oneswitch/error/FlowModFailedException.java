package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;

/** A flow_mod refused with OFPET_FLOW_MOD_FAILED. */
public class FlowModFailedException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public FlowModFailedException(OFFlowModFailedCode code, String reason) {
        super(code, reason);
    }
}
