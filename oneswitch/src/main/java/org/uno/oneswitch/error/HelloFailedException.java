package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFHelloFailedCode;

/** A connection refused at HELLO (no common OpenFlow version). */
public class HelloFailedException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public HelloFailedException(OFHelloFailedCode code, String reason) {
        super(code, reason);
    }
}
