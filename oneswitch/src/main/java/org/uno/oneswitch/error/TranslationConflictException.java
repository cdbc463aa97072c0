package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;

/**
 * A virtual rule set the translation cannot express on the physical switches without changing what
 * some packet does (see oneswitch/README.md, "What cannot be translated": FLOOD or ALL in an action
 * set, a group written before an output in a later table, no free flow-id tag, two owners needing
 * the same physical entry or group with different content).
 *
 * <p>Answered with OFPET_FLOW_MOD_FAILED / OFPFMFC_UNKNOWN on the flow_mod that caused it (a
 * group_mod gets GROUP_MOD_FAILED / BAD_BUCKET), and with HTTP 409 on a port-map change or remap
 * that caused it; in all cases nothing is changed.
 */
public final class TranslationConflictException extends FlowModFailedException {
    private static final long serialVersionUID = 1L;

    public TranslationConflictException(String reason) {
        super(OFFlowModFailedCode.UNKNOWN, reason);
    }
}
