package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.markerArrived;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFPacketOut;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Link;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.testing.RecordingNetwork;
import org.uno.oneswitch.testing.RecordingNotifier;

/**
 * When a switch connects, OneSwitch sends drain markers between it and every other connected switch, both
 * ways, after a barrier on every switch, and records whether they all came back (health shows it).
 */
class LinkCheckTest {
    private final Topology topology = new Topology(List.of(
            new SwitchSpec("host", SwitchSpec.Role.HOST, DatapathId.of(1), List.of(
                    new PortSpec("ph0", OFPort.of(1), PortSpec.Kind.PCIE))),
            new SwitchSpec("snic0", SwitchSpec.Role.SNIC, DatapathId.of(2), List.of(
                    new PortSpec("ps0", OFPort.of(1), PortSpec.Kind.PCIE)))),
            List.of(new Link(new PhysicalPort("host", OFPort.of(1)), new PhysicalPort("snic0", OFPort.of(1)))));
    private final RecordingNetwork net = new RecordingNetwork(topology);
    private final List<Runnable> timers = new ArrayList<>();
    private final VirtualSwitch vs = new VirtualSwitch(DatapathId.of(9), 8, topology, net,
            new RecordingNotifier(new ArrayList<>()), () -> 0L, (ms, task) -> timers.add(task), 1000);

    @Test
    void aConnectingSwitchGetsMarkersBothWaysAfterABarrierAndTheCheckIsRecordedOnceTheyAreBack() {
        net.takeSent("host");
        net.takeSent("snic0");
        net.holdBarriers();
        vs.switchConnected("snic0", new SwitchTables(List.of(), List.of(), List.of(), Optional.empty()));
        assertTrue(packetOuts(net.takeSent("snic0")).isEmpty(), "no marker before the barrier is answered");
        net.releaseBarriers();
        List<OFMessage> snic = net.takeSent("snic0");
        List<OFMessage> host = net.takeSent("host");
        assertEquals(1, packetOuts(snic).size(), "one marker from the switch that connected");
        assertEquals(1, packetOuts(host).size(), "and one toward it");
        assertTrue(vs.linkChecks().isEmpty(), "recorded once the markers are back");
        vs.packetIn("host", markerArrived(packetOuts(snic).get(0)));
        vs.packetIn("snic0", markerArrived(packetOuts(host).get(0)));
        LinkCheck.Result r = vs.linkChecks().get("snic0");
        assertTrue(r.ok());
        assertEquals(List.of("host"), r.others());
    }

    @Test
    void aLostMarkerIsRecordedAsAFailedCheck() {
        vs.switchConnected("host", new SwitchTables(List.of(), List.of(), List.of(), Optional.empty()));
        assertEquals(1, packetOuts(net.takeSent("host")).size());
        timers.forEach(Runnable::run);     // both timeouts: no marker came back
        assertFalse(vs.linkChecks().get("host").ok());
    }

    private static List<OFPacketOut> packetOuts(List<OFMessage> sent) {
        return sent.stream().filter(m -> m instanceof OFPacketOut).map(m -> (OFPacketOut) m).toList();
    }
}
