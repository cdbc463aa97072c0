package org.uno.oneswitch.testing;

import java.util.List;

import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.uno.oneswitch.core.ControllerNotifier;
import org.uno.oneswitch.core.RuleRemoved;
import org.uno.oneswitch.core.VirtualPacketIn;
import org.uno.oneswitch.endpoint.AsyncMessages;
import org.uno.oneswitch.stats.PortDescription;

/**
 * A controller side that keeps every asynchronous message it is sent, in order, in {@code sent}, as the
 * northbound endpoint encodes it.
 */
public final class RecordingNotifier implements ControllerNotifier {
    private final List<OFMessage> sent;

    public RecordingNotifier(List<OFMessage> sent) {
        this.sent = sent;
    }

    @Override
    public void packetIn(VirtualPacketIn packet) {
        sent.add(AsyncMessages.packetIn(Fixtures.OF13, packet));
    }

    @Override
    public void portStatus(OFPortReason reason, PortDescription port) {
        sent.add(AsyncMessages.portStatus(Fixtures.OF13, reason, port));
    }

    @Override
    public void flowRemoved(RuleRemoved removed) {
        sent.add(AsyncMessages.flowRemoved(Fixtures.OF13, removed));
    }
}
