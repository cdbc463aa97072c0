package org.uno.oneswitch.core;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.projectfloodlight.openflow.protocol.OFMeterModCommand;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.PortModRequest;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.plan.PlanChange;
import org.uno.oneswitch.stats.EntryCounters;
import org.uno.oneswitch.stats.GroupCounters;
import org.uno.oneswitch.stats.MeterCounters;
import org.uno.oneswitch.stats.PortCounters;
import org.uno.oneswitch.stats.PortDescription;
import org.uno.oneswitch.stats.TableCounters;

/**
 * The physical switches as the core sees them: apply plan changes, meters and packet-outs, read
 * counters as records, wait for barriers, read their live ports. The implementation encodes (the
 * southbound controller over real OpenFlow connections, an in-memory recorder in tests); the core
 * builds no message. All calls happen on OneSwitch's event loop.
 *
 * <p>A change is dropped when its switch is not connected: its tables are reconciled with the plan
 * when it connects. A counter request to such a switch fails.
 */
public interface PhysicalNetwork {
    /**
     * Receives the error a physical switch answered a change with, in the controller's terms: the
     * same type and code, without the physical message (which would show physical numbers).
     */
    @FunctionalInterface
    interface ErrorListener {
        void onError(String switchId, OpenFlowException error);
    }

    boolean connected(String switchId);

    /**
     * Applies {@code change} (a flow entry or group added, modified or deleted) on its switch,
     * resetting an entry's counters if {@code resetCounts}; an error the switch answers with goes to
     * {@code onError}.
     */
    void apply(PlanChange change, boolean resetCounts, ErrorListener onError);

    /** Adds, modifies or deletes meter {@code meter} on {@code switchId}. */
    void meter(String switchId, OFMeterModCommand command, VirtualMeter meter, ErrorListener onError);

    /** Applies a PORT_MOD to {@code switchId}'s port {@code change.port()}. */
    void portMod(String switchId, PortModRequest change, ErrorListener onError);

    /** Sends {@code data} out of {@code switchId} through {@code actions}, as if it came in on {@code inPort}. */
    void packetOut(String switchId, OFPort inPort, List<Action> actions, byte[] data, ErrorListener onError);

    /**
     * The counters of the entries of table {@code table} (-1: every table) whose cookie equals
     * {@code cookie} under {@code mask}.
     */
    CompletableFuture<List<EntryCounters>> entryCounters(String switchId, int table, U64 cookie, U64 mask);

    /** The counters of port {@code port} ({@code OFPort.ANY}: of every port). */
    CompletableFuture<List<PortCounters>> portCounters(String switchId, OFPort port);

    /** The counters of every table. */
    CompletableFuture<List<TableCounters>> tableCounters(String switchId);

    /** The counters of group {@code group} ({@code OFGroup.ALL}: of every group). */
    CompletableFuture<List<GroupCounters>> groupCounters(String switchId, OFGroup group);

    /** The counters of meter {@code meter} (OFPM_ALL: of every meter). */
    CompletableFuture<List<MeterCounters>> meterCounters(String switchId, long meter);

    /**
     * Completes once every connected switch has answered a barrier sent after every message sent
     * to it so far.
     */
    CompletableFuture<Void> barrier();

    /**
     * Completes once each connected switch of {@code switches} has applied everything sent to it so
     * far and its datapath's cached flows follow its tables: a barrier, then (when the switch's
     * control socket is known) its revalidators paused, its datapath flows purged and its
     * revalidators resumed ({@code ovs-appctl revalidator/pause}, {@code purge}, {@code resume}).
     */
    CompletableFuture<Void> settle(Collection<String> switches);

    /** The ports {@code switchId} reported (empty when not connected). */
    Map<OFPort, PortDescription> ports(String switchId);
}
