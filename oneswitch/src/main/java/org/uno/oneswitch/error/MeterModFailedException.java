package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFMeterModFailedCode;

/** A meter_mod refused with OFPET_METER_MOD_FAILED. */
public class MeterModFailedException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public MeterModFailedException(OFMeterModFailedCode code, String reason) {
        super(code, reason);
    }
}
