package org.uno.oneswitch.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.testing.Fixtures;

class TopologyTest {
    @Test
    void treeFromAnSnicToAnotherGoesThroughTheHost() {
        Topology t = Fixtures.topology(2);
        ForwardingTree tree = t.tree("snic0", List.of("snic1"));
        assertEquals(List.of("snic0", "host", "snic1"), List.copyOf(tree.nodes().keySet()));
        assertEquals(List.of(OFPort.of(1)), tree.node("snic0").copies());
        assertEquals(Optional.of(OFPort.of(1)), tree.node("host").arrival());
        assertEquals(List.of(OFPort.of(11)), tree.node("host").copies());
        assertEquals(List.of(), tree.node("snic1").copies());
    }

    @Test
    void linkPortsAreKnown() {
        Topology t = Fixtures.topology(2);
        assertTrue(t.isLinkPort(new PhysicalPort("host", OFPort.of(11))));
        assertEquals(List.of(OFPort.of(1), OFPort.of(11)), t.linkPorts("host"));
        assertEquals("snic1", t.byDatapathId(DatapathId.of(3)).orElseThrow().id());
    }

    @Test
    void inconsistentDescriptionsAreRefused() {
        SwitchSpec host = new SwitchSpec("host", SwitchSpec.Role.HOST, DatapathId.of(1), List.of());
        SwitchSpec snic = new SwitchSpec("snic0", SwitchSpec.Role.SNIC, DatapathId.of(1), List.of());
        assertThrows(IllegalArgumentException.class, () -> new Topology(List.of(host, snic), List.of()));
        SwitchSpec snic2 = new SwitchSpec("snic0", SwitchSpec.Role.SNIC, DatapathId.of(2), List.of());
        assertThrows(IllegalArgumentException.class, () -> new Topology(List.of(host, snic2), List.of()),
                "two switches need one link");
    }
}
