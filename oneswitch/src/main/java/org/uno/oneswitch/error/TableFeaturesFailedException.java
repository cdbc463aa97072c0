package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFTableFeaturesFailedCode;

/** A TABLE_FEATURES request that tries to change the tables. */
public class TableFeaturesFailedException extends OpenFlowException {
    private static final long serialVersionUID = 1L;

    public TableFeaturesFailedException(OFTableFeaturesFailedCode code, String reason) {
        super(code, reason);
    }
}
