package org.uno.oneswitch.testing;

import java.util.List;

import org.projectfloodlight.openflow.protocol.OFFlowRemoved;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPortStatus;
import org.uno.oneswitch.core.ControllerNotifier;

/** A controller side that keeps every asynchronous message it is sent, in order, in {@code sent}. */
public final class RecordingNotifier implements ControllerNotifier {
    private final List<OFMessage> sent;

    public RecordingNotifier(List<OFMessage> sent) {
        this.sent = sent;
    }

    @Override
    public void packetIn(OFPacketIn msg) {
        sent.add(msg);
    }

    @Override
    public void portStatus(OFPortStatus msg) {
        sent.add(msg);
    }

    @Override
    public void flowRemoved(OFFlowRemoved msg) {
        sent.add(msg);
    }
}
