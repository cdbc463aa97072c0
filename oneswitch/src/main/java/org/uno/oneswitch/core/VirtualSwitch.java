package org.uno.oneswitch.core;

import java.util.List;
import java.util.function.LongSupplier;

import org.projectfloodlight.openflow.protocol.OFPacketIn;
import org.projectfloodlight.openflow.types.DatapathId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.store.PortMapStore;
import org.uno.oneswitch.store.VirtualFlowTable;
import org.uno.oneswitch.translate.InstalledEntry;
import org.uno.oneswitch.translate.PacketOutTranslator;
import org.uno.oneswitch.translate.PhysicalPlan;
import org.uno.oneswitch.translate.Translator;

/**
 * The virtual switch: its identity, its stores and the services the endpoint and REST use, wired
 * together; it also reacts to what happens to the physical switches. One instance per OneSwitch,
 * used only from the event loop (no locking, no singletons).
 */
public final class VirtualSwitch implements PhysicalEvents {
    private static final Logger LOG = LoggerFactory.getLogger(VirtualSwitch.class);

    private final DatapathId datapathId;
    private final int tables;
    private final Topology topology;
    private final VirtualFlowTable table = new VirtualFlowTable();
    private final PhysicalPlan plan;
    private final FlowService flows;
    private final PortService ports;
    private final StatsService stats;
    private final PacketService packets;

    public VirtualSwitch(DatapathId datapathId, int tables, Topology topology, PhysicalNetwork net,
                         ControllerNotifier notifier, LongSupplier clock) {
        this.datapathId = datapathId;
        this.tables = tables;
        this.topology = topology;
        this.plan = new PhysicalPlan(topology);
        PortMapStore portMap = new PortMapStore();
        this.flows = new FlowService(table, plan, new Translator(topology), portMap::current, net, notifier, clock);
        this.ports = new PortService(topology, portMap, net, notifier, flows);
        this.stats = new StatsService(flows, ports, table, net, topology, clock, tables);
        this.packets = new PacketService(net, notifier, flows, ports::current, new PacketOutTranslator(topology));
    }

    public DatapathId datapathId() {
        return datapathId;
    }

    /** How many flow tables the virtual switch has (0..tables-1). */
    public int tables() {
        return tables;
    }

    public Topology topology() {
        return topology;
    }

    public FlowService flows() {
        return flows;
    }

    public PortService ports() {
        return ports;
    }

    public StatsService stats() {
        return stats;
    }

    public PacketService packets() {
        return packets;
    }

    /** How many virtual rules are installed. */
    public int virtualRuleCount() {
        return table.size();
    }

    /** How many physical entries the virtual rules need. */
    public int physicalEntryCount() {
        return plan.size();
    }

    @Override
    public void switchConnected(String switchId, List<InstalledEntry> entries) {
        LOG.info("physical switch {} connected", switchId);
        ports.physicalPortsChanged(switchId);
        flows.reconcile(switchId, entries);
    }

    @Override
    public void switchDisconnected(String switchId) {
        LOG.warn("physical switch {} disconnected", switchId);
        ports.physicalPortsChanged(switchId);
    }

    @Override
    public void portsChanged(String switchId) {
        ports.physicalPortsChanged(switchId);
    }

    @Override
    public void packetIn(String switchId, OFPacketIn packetIn) {
        packets.packetIn(switchId, packetIn);
    }
}
