package org.uno.oneswitch.error;

import org.projectfloodlight.openflow.protocol.OFBadActionCode;
import org.projectfloodlight.openflow.protocol.OFBadInstructionCode;
import org.projectfloodlight.openflow.protocol.OFBadMatchCode;
import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFGroupModFailedCode;
import org.projectfloodlight.openflow.protocol.OFHelloFailedCode;
import org.projectfloodlight.openflow.protocol.OFMeterModFailedCode;
import org.projectfloodlight.openflow.protocol.OFPortModFailedCode;
import org.projectfloodlight.openflow.protocol.OFRoleRequestFailedCode;
import org.projectfloodlight.openflow.protocol.OFTableFeaturesFailedCode;
import org.projectfloodlight.openflow.protocol.errormsg.OFErrorMsgs;
import org.projectfloodlight.openflow.types.OFErrorCauseData;

/**
 * A request OneSwitch refuses, with the OpenFlow error type and code it answers with.
 *
 * <p>Every refusal anywhere in OneSwitch (decoding, validation, translation, role checks) is one of
 * the typed subclasses; the endpoint turns it into an OFPT_ERROR carrying the request's xid and the
 * start of the request, so nothing is dropped silently and nothing half-applied. Invariant: the
 * code is one of openflowj's OpenFlow 1.3 error code enums.
 */
public abstract class OpenFlowException extends Exception {
    private static final long serialVersionUID = 1L;

    private final Enum<?> code;

    protected OpenFlowException(Enum<?> code, String reason) {
        super(reason);
        this.code = code;
    }

    public Enum<?> code() {
        return code;
    }

    /**
     * The error message for a request with {@code xid}; {@code data} is the start of the request. A
     * code the factory's version does not define becomes BAD_REQUEST/EPERM rather than no answer.
     */
    public OFErrorMsg toErrorMsg(OFFactory factory, long xid, OFErrorCauseData data) {
        try {
            return encode(factory, xid, data);
        } catch (IllegalArgumentException e) {
            return factory.errorMsgs().buildBadRequestErrorMsg().setXid(xid).setCode(OFBadRequestCode.EPERM)
                    .setData(data).build();
        }
    }

    private OFErrorMsg encode(OFFactory factory, long xid, OFErrorCauseData data) {
        OFErrorMsgs e = factory.errorMsgs();
        if (code instanceof OFBadRequestCode c) {
            return e.buildBadRequestErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFBadActionCode c) {
            return e.buildBadActionErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFBadInstructionCode c) {
            return e.buildBadInstructionErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFBadMatchCode c) {
            return e.buildBadMatchErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFFlowModFailedCode c) {
            return e.buildFlowModFailedErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFHelloFailedCode c) {
            return e.buildHelloFailedErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFRoleRequestFailedCode c) {
            return e.buildRoleRequestFailedErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFTableFeaturesFailedCode c) {
            return e.buildTableFeaturesFailedErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFGroupModFailedCode c) {
            return e.buildGroupModFailedErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFPortModFailedCode c) {
            return e.buildPortModFailedErrorMsg().setXid(xid).setCode(c).setData(data).build();
        } else if (code instanceof OFMeterModFailedCode c) {
            return e.buildMeterModFailedErrorMsg().setXid(xid).setCode(c).setData(data).build();
        }
        throw new IllegalStateException("no OpenFlow error type for code " + code);
    }

    /** The error as "CodeEnum.CODE: reason", for logs and REST answers. */
    public String describe() {
        return code.getDeclaringClass().getSimpleName().replace("OF", "").replace("Code", "")
                + "." + code + ": " + getMessage();
    }
}
