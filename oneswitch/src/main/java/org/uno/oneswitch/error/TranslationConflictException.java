package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;

/**
 * A virtual rule set that port-map based translation cannot express on the physical switches
 * without changing what some packet does (a multi-ingress or multi-egress conflict on a link port,
 * or two virtual rules that would need the same physical flow entry with different actions).
 *
 * <p>Answered with OFPET_FLOW_MOD_FAILED / OFPFMFC_UNKNOWN on the flow_mod that caused it, and with
 * HTTP 409 on a port-map change that caused it; in both cases nothing is changed.
 */
public final class TranslationConflictException extends FlowModFailedException {
    public TranslationConflictException(String reason) {
        super(OFFlowModFailedCode.UNKNOWN, reason);
    }
}
