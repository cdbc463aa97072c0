package org.uno.oneswitch.testing;

import java.util.ArrayList;
import java.util.List;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFPacketInReason;
import org.projectfloodlight.openflow.protocol.OFPacketOut;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.EthType;
import org.projectfloodlight.openflow.types.IPv4Address;
import org.projectfloodlight.openflow.types.MacAddress;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.OFVlanVidMatch;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.FlowMatch;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.Link;
import org.uno.oneswitch.model.PhysicalPacketIn;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualRule;

/**
 * A small platform for tests, like the emulated one: host (dpid 1) with PCIe port 1 and VM ports
 * 2, 3; snic0 (dpid 2) with PCIe port 1 and wire port 2; optionally snic1 (dpid 3) likewise.
 * Virtual ports: V1 = host:2, V2 = host:3, V3 = snic0:2, V4 = snic1:2.
 */
public final class Fixtures {
    public static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    public static final OFPort PCIE = OFPort.of(1);

    private Fixtures() {
    }

    public static Topology topology(int snics) {
        List<SwitchSpec> switches = new ArrayList<>();
        switches.add(new SwitchSpec("host", SwitchSpec.Role.HOST, DatapathId.of(1), List.of(
                new PortSpec("ph0", OFPort.of(1), PortSpec.Kind.PCIE),
                new PortSpec("vm0", OFPort.of(2), PortSpec.Kind.VM),
                new PortSpec("vm1", OFPort.of(3), PortSpec.Kind.VM))));
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < snics; i++) {
            String id = "snic" + i;
            OFPort hostEnd = OFPort.of(i == 0 ? 1 : 10 + i);
            if (i > 0) {
                List<PortSpec> hostPorts = new ArrayList<>(switches.get(0).ports());
                hostPorts.add(new PortSpec("ph" + i, hostEnd, PortSpec.Kind.PCIE));
                switches.set(0, new SwitchSpec("host", SwitchSpec.Role.HOST, DatapathId.of(1), hostPorts));
            }
            switches.add(new SwitchSpec(id, SwitchSpec.Role.SNIC, DatapathId.of(2 + i), List.of(
                    new PortSpec("ps" + i, OFPort.of(1), PortSpec.Kind.PCIE),
                    new PortSpec("w" + i, OFPort.of(2), PortSpec.Kind.WIRE))));
            links.add(new Link(new PhysicalPort("host", hostEnd), new PhysicalPort(id, OFPort.of(1))));
        }
        return new Topology(switches, links);
    }

    /** V1 = host:2, V2 = host:3, V3 = snic0:2 and, with two sNICs, V4 = snic1:2. */
    public static PortMap ports(int snics) {
        List<PortMapping> m = new ArrayList<>(List.of(map(1, "host", 2, "vm0"), map(2, "host", 3, "vm1"),
                map(3, "snic0", 2, "w0")));
        if (snics > 1) {
            m.add(map(4, "snic1", 2, "w1"));
        }
        return PortMap.of(m);
    }

    /** The ports of the UNO paper's Fig. 6: V1 = host:2, V2 = host:3 (VMs), V3 = snic0:2, V4 = snic0:3. */
    public static PortMap fig6Ports() {
        return PortMap.of(List.of(map(1, "host", 2, "vm0"), map(2, "host", 3, "vm1"), map(3, "snic0", 2, "w0"),
                map(4, "snic0", 3, "w1")));
    }

    public static PortMapping map(int virtual, String sw, int port, String name) {
        return new PortMapping(OFPort.of(virtual), new PhysicalPort(sw, OFPort.of(port)), name, name);
    }

    public static FlowMatch match(OFOxm<?>... oxms) {
        return FlowMatch.of(List.of(oxms));
    }

    public static OFOxm<?> inPort(int p) {
        return OF13.oxms().inPort(OFPort.of(p));
    }

    public static OFOxm<?> ethDst(String mac) {
        return OF13.oxms().ethDst(MacAddress.of(mac));
    }

    public static OFOxm<?> ipv4() {
        return OF13.oxms().ethType(EthType.IPv4);
    }

    public static OFOxm<?> ipv4Src(String ip) {
        return OF13.oxms().ipv4Src(IPv4Address.of(ip));
    }

    public static Action out(int port) {
        return Action.Output.to(OFPort.of(port));
    }

    public static Action out(OFPort port) {
        return Action.Output.to(port);
    }

    public static OFOxm<?> vlan(int vid) {
        return OF13.oxms().vlanVid(OFVlanVidMatch.ofVlan(vid));
    }

    public static Action pushVlan() {
        return new Action.Other(OF13.actions().pushVlan(EthType.VLAN_FRAME));
    }

    public static Action popVlan() {
        return new Action.Other(OF13.actions().popVlan());
    }

    public static Action setVlan(int vid) {
        return new Action.Other(OF13.actions().setField(OF13.oxms().vlanVid(OFVlanVidMatch.ofVlan(vid))));
    }

    public static Action group(long id) {
        return new Action.Group(OFGroup.of((int) id));
    }

    public static Action setIpv4Src(String ip) {
        return new Action.Other(OF13.actions().setField(OF13.oxms().ipv4Src(IPv4Address.of(ip))));
    }

    public static List<Instruction> apply(Action... actions) {
        return List.of(new Instruction.ApplyActions(List.of(actions)));
    }

    public static VirtualRule rule(long id, int priority, FlowMatch match, List<Instruction> instructions) {
        return VirtualRule.builder().id(id).priority(priority).match(match).instructions(instructions).build();
    }

    public static VirtualRule rule(long id, int table, int priority, FlowMatch match, List<Instruction> instructions) {
        return VirtualRule.builder().id(id).table(table).priority(priority).match(match).instructions(instructions)
                .build();
    }

    /** The marker as the target switch hands it to OneSwitch: tagged, from the PCIe port. */
    public static PhysicalPacketIn markerArrived(OFPacketOut marker) {
        byte[] d = marker.getData();
        byte[] tagged = new byte[d.length + 4];
        System.arraycopy(d, 0, tagged, 0, 12);
        tagged[12] = (byte) 0x88;
        tagged[13] = (byte) 0xa8;
        System.arraycopy(d, 12, tagged, 16, d.length - 12);
        return PhysicalMessages.packetIn(OF13.buildPacketIn().setBufferId(OFBufferId.NO_BUFFER)
                .setTotalLen(tagged.length).setReason(OFPacketInReason.ACTION).setTableId(TableId.of(0))
                .setCookie(U64.ZERO).setMatch(OF13.buildMatch().setExact(MatchField.IN_PORT, OFPort.of(1)).build())
                .setData(tagged).build());
    }
}
