package org.uno.oneswitch.south;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import javax.net.ssl.SSLSession;

import io.netty.handler.ssl.SslHandler;

import org.projectfloodlight.openflow.protocol.OFFeaturesReply;
import org.projectfloodlight.openflow.protocol.OFFlowStatsEntry;
import org.projectfloodlight.openflow.protocol.OFFlowStatsReply;
import org.projectfloodlight.openflow.protocol.OFGroupDescStatsEntry;
import org.projectfloodlight.openflow.protocol.OFGroupDescStatsReply;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMeterConfigStatsReply;
import org.projectfloodlight.openflow.protocol.OFMeterFeaturesStatsReply;
import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.protocol.OFPortDesc;
import org.projectfloodlight.openflow.protocol.OFPortDescStatsReply;
import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.projectfloodlight.openflow.protocol.OFPortStatus;
import org.projectfloodlight.openflow.protocol.OFStatsReply;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.MeterModCodec;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.codec.PortDescCodec;
import org.uno.oneswitch.codec.StatsCodec;
import org.uno.oneswitch.core.SwitchTables;
import org.uno.oneswitch.model.MeterModRequest;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.plan.InstalledEntry;
import org.uno.oneswitch.plan.PhysicalGroup;
import org.uno.oneswitch.stats.MeterFeatures;
import org.uno.oneswitch.stats.PortDescription;
import org.uno.oneswitch.translate.PhysicalPlan;

/**
 * A physical switch connected to OneSwitch as to its controller: the handshake learns its datapath
 * id (which switch of the platform it is), sets miss_send_len, reads its ports and its flow table
 * (for reconciliation), then its PACKET_INs and PORT_STATUSes go to the virtual switch. Commands
 * go over this connection unless the switch's management socket is open ({@link CommandChannel}).
 */
final class SwitchConnection extends SwitchChannel {
    private static final Logger LOG = LoggerFactory.getLogger(SwitchConnection.class);

    private final PhysicalSwitches registry;
    private SwitchSpec spec;
    private boolean ready;
    private RequestTracker commands;
    private final Map<OFPort, PortDescription> ports = new LinkedHashMap<>();

    SwitchConnection(PhysicalSwitches registry, int maxIdleProbes) {
        super(maxIdleProbes);
        this.registry = registry;
    }

    @Override
    String name() {
        return spec != null ? spec.id() : String.valueOf(channel.remoteAddress());
    }

    boolean ready() {
        return ready;
    }

    Map<OFPort, PortDescription> ports() {
        return Collections.unmodifiableMap(ports);
    }

    /** Where commands to this switch go, chosen at the handshake (so their order is never split). */
    RequestTracker commands() {
        return commands;
    }

    /**
     * The command channel this switch used closed: commands go over this connection from now on,
     * and the flow table is read and reconciled again (changes in flight may have been lost).
     */
    void commandChannelLost(RequestTracker lost) {
        if (commands == lost) {
            LOG.warn("command channel to {} lost; commands go over the controller connection", name());
            commands = tracker;
            if (ready) {
                resync();
            }
        }
    }

    @Override
    void negotiated() {
        tracker.write(OF13.buildFeaturesRequest());
    }

    @Override
    void onMessage(OFMessage m) {
        switch (m.getType()) {
            case FEATURES_REPLY -> onFeatures((OFFeaturesReply) m);
            case PACKET_IN -> {
                if (ready) {
                    registry.events().packetIn(spec.id(), PhysicalMessages.packetIn((OFPacketIn) m));
                }
            }
            case PORT_STATUS -> onPortStatus((OFPortStatus) m);
            case FLOW_REMOVED -> {
            }
            default -> LOG.debug("switch {} sent unexpected {}", name(), m.getType());
        }
    }

    @Override
    void closed() {
        if (spec != null) {
            registry.detached(spec.id(), this);
        }
    }

    private void onFeatures(OFFeaturesReply f) {
        if (spec != null) {
            return;
        }
        SwitchSpec claimed = registry.identify(f.getDatapathId()).orElse(null);
        if (claimed == null) {
            LOG.warn("datapath {} at {} is not in the platform description; closing", f.getDatapathId(),
                    channel.remoteAddress());
            channel.close();
            return;
        }
        if (registry.tls().isPresent()) {
            SSLSession session = channel.pipeline().get(SslHandler.class).engine().getSession();
            if (!registry.tls().get().proves(claimed.id(), session)) {
                LOG.warn("connection from {} claims datapath {} (switch {}) with the certificate of {}, not that "
                        + "switch's; closing", channel.remoteAddress(), f.getDatapathId(), claimed.id(),
                        SouthboundTls.subject(session).orElse("nobody"));
                channel.close();
                return;
            }
        }
        spec = claimed;
        LOG.info("physical switch {} (datapath {}) handshaking", spec.id(), f.getDatapathId());
        registry.attached(spec.id(), this);
        commands = registry.commandChannel(spec.id()).orElse(tracker);
        tracker.write(OF13.buildSetConfig().setMissSendLen(0xffff));
        tracker.request(OF13.buildPortDescStatsRequest().build()).thenAccept(replies -> {
            ports.clear();
            for (OFStatsReply r : replies) {
                ((OFPortDescStatsReply) r).getEntries().forEach(d -> ports.put(d.getPortNo(), PortDescCodec.decode(d)));
            }
            resync();
        });
    }

    /**
     * Reads the flow, group and meter tables and the meter features, and reports the switch
     * connected (the virtual switch reconciles it). A switch without meters answers the meter
     * requests with errors: it has none.
     */
    private void resync() {
        // Sealed entries are left out: openflowj cannot read them (the plan writes them again).
        CompletableFuture<List<OFStatsReply>> flows = commands.request(OF13.buildFlowStatsRequest()
                .setTableId(TableId.ALL).setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).setCookie(U64.ZERO)
                .setCookieMask(U64.of(PhysicalPlan.SEALED_COOKIE_BIT)).setMatch(OF13.buildMatch().build()).build());
        CompletableFuture<List<OFStatsReply>> groups = commands.request(OF13.buildGroupDescStatsRequest().build());
        CompletableFuture<List<OFStatsReply>> meters = commands.request(OF13.buildMeterConfigStatsRequest()
                .setMeterId(MeterModRequest.ALL).build()).exceptionally(t -> List.of());
        CompletableFuture<List<OFStatsReply>> features = commands.request(OF13.buildMeterFeaturesStatsRequest()
                .build()).exceptionally(t -> List.of());
        CompletableFuture.allOf(flows, groups, meters, features).thenRun(() -> {
            if (!channel.isActive()) {
                return;
            }
            List<InstalledEntry> entries = new ArrayList<>();
            for (OFStatsReply r : flows.join()) {
                for (OFFlowStatsEntry e : ((OFFlowStatsReply) r).getEntries()) {
                    entries.add(PhysicalMessages.installed(spec.id(), e));
                }
            }
            List<PhysicalGroup> installedGroups = new ArrayList<>();
            for (OFStatsReply r : groups.join()) {
                for (OFGroupDescStatsEntry e : ((OFGroupDescStatsReply) r).getEntries()) {
                    installedGroups.add(PhysicalMessages.installedGroup(spec.id(), e));
                }
            }
            List<VirtualMeter> installedMeters = new ArrayList<>();
            for (OFStatsReply r : meters.join()) {
                ((OFMeterConfigStatsReply) r).getEntries().forEach(c -> installedMeters.add(MeterModCodec.installed(c)));
            }
            Optional<MeterFeatures> meterFeatures = features.join().stream().findFirst()
                    .map(r -> StatsCodec.features(((OFMeterFeaturesStatsReply) r).getFeatures()));
            ready = true;
            registry.events().switchConnected(spec.id(), new SwitchTables(entries, installedGroups, installedMeters,
                    meterFeatures));
        }).exceptionally(t -> {
            LOG.warn("switch {}: reading its tables failed ({}); it is reconciled when it connects again", name(),
                    t.toString());
            return null;
        });
    }

    private void onPortStatus(OFPortStatus s) {
        OFPortDesc d = s.getDesc();
        if (s.getReason() == OFPortReason.DELETE) {
            ports.remove(d.getPortNo());
        } else {
            ports.put(d.getPortNo(), PortDescCodec.decode(d));
        }
        if (ready) {
            registry.events().portsChanged(spec.id());
        }
    }
}
