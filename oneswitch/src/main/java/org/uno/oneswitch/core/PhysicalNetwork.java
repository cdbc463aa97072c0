package org.uno.oneswitch.core;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.projectfloodlight.openflow.protocol.OFErrorMsg;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPortDesc;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.types.OFPort;

/**
 * The physical switches as the core sees them: send messages, make multipart requests and
 * barriers, read their live ports. Implemented by the southbound controller over real OpenFlow
 * connections, and by an in-memory recorder in tests. All calls happen on OneSwitch's event loop.
 */
public interface PhysicalNetwork {
    /** Receives an OFPT_ERROR a physical switch sent about a message. */
    @FunctionalInterface
    interface ErrorListener {
        void onError(String switchId, OFErrorMsg error);
    }

    /** The OpenFlow 1.3 factory for building messages. */
    OFFactory factory();

    boolean connected(String switchId);

    /**
     * Builds (with a fresh xid) and sends {@code msg} to {@code switchId} if connected; an error the
     * switch answers it with goes to {@code onError}. Dropped when the switch is not connected: its
     * table is reconciled with the plan when it connects.
     */
    void send(String switchId, OFMessage.Builder msg, ErrorListener onError);

    /** Sends a multipart request and completes with every reply part (exceptionally on error or disconnect). */
    CompletableFuture<List<OFStatsReply>> request(String switchId, OFStatsRequest<?> req);

    /**
     * Completes once every connected switch has answered a barrier sent after every message sent
     * to it so far.
     */
    CompletableFuture<Void> barrier();

    /**
     * Completes once each connected switch of {@code switches} has applied everything sent to it so
     * far and its datapath's cached flows follow its tables: a barrier, then (when the switch's
     * control socket is known) the end of an Open vSwitch revalidation round that started after
     * the changes, as {@code ovs-appctl revalidator/wait} reports round ends.
     */
    CompletableFuture<Void> settle(Collection<String> switches);

    /** The ports {@code switchId} reported (empty when not connected). */
    Map<OFPort, OFPortDesc> ports(String switchId);
}
