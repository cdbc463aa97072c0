package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;

/** Reads descriptions shaped like snic-datapath/README.md's example. */
class PlatformLoaderTest {
    static final String EXAMPLE = """
            {"schema": "uno-platform/1", "profile": "emulated", "prefix": "uno-",
             "switches": [
              {"id": "host", "role": "host", "datapath_id": "0000000000000001", "bridge": "uno-host",
               "ports": [{"name": "uno-ph0", "ofport": 1, "kind": "pcie", "peer": {"switch": "snic0", "port": "uno-ps0"}},
                         {"name": "uno-vm0", "ofport": 2, "kind": "vm", "vm": "vm0"}]},
              {"id": "snic0", "role": "snic", "datapath_id": "0000000000000002", "bridge": "uno-snic",
               "ports": [{"name": "uno-ps0", "ofport": 1, "kind": "pcie", "peer": {"switch": "host", "port": "uno-ph0"}},
                         {"name": "uno-w0p0", "ofport": 2, "kind": "wire", "ext_ifname": "eth0"}]}],
             "pcie_links": [{"host_port": "uno-ph0", "snic": "snic0", "snic_port": "uno-ps0", "gbps": 10.0, "mtu": 1600}]}
            """;

    @TempDir
    Path dir;

    @Test
    void readsSwitchesRolesPortsAndLinks() throws Exception {
        Path f = dir.resolve("platform.json");
        Files.writeString(f, EXAMPLE);
        Topology t = PlatformLoader.load(f);
        SwitchSpec snic = t.byDatapathId(DatapathId.of(2)).orElseThrow();
        assertEquals(SwitchSpec.Role.SNIC, snic.role());
        assertEquals(PortSpec.Kind.WIRE, snic.port("uno-w0p0").orElseThrow().kind());
        assertTrue(t.isLinkPort(new PhysicalPort("host", OFPort.of(1))));
        assertTrue(t.isLinkPort(new PhysicalPort("snic0", OFPort.of(1))));
    }

    @Test
    void refusesBrokenDescriptions() throws Exception {
        Path f = dir.resolve("platform.json");
        Files.writeString(f, EXAMPLE.replace("uno-platform/1", "uno-platform/9"));
        assertTrue(assertThrows(ConfigException.class, () -> PlatformLoader.load(f)).getMessage().contains("schema"));
        Files.writeString(f, EXAMPLE.replace("\"snic_port\": \"uno-ps0\"", "\"snic_port\": \"nope\""));
        assertThrows(ConfigException.class, () -> PlatformLoader.load(f));
        Files.writeString(f, "{");
        assertThrows(ConfigException.class, () -> PlatformLoader.load(f));
        assertThrows(ConfigException.class, () -> PlatformLoader.load(dir.resolve("missing.json")));
    }

    @Test
    void readsTheDaemonOfASnicThatIsAMachineOfItsOwn() throws Exception {
        Path f = dir.resolve("platform.json");
        String remote = EXAMPLE.replace("\"bridge\": \"uno-snic\",",
                "\"bridge\": \"uno-snic\", \"machine\": {\"daemon\": \"192.168.100.2:7340\"},");
        Files.writeString(f, remote);
        Topology t = PlatformLoader.load(f);
        assertEquals(new InetSocketAddress("192.168.100.2", 7340),
                t.byDatapathId(DatapathId.of(2)).orElseThrow().snicDaemon().orElseThrow());
        assertTrue(t.byDatapathId(DatapathId.of(1)).orElseThrow().snicDaemon().isEmpty());
        for (String bad : new String[] {"192.168.100.2", "snic.example:7340", "192.168.100.2:0", "192.168.100.2:x",
                ":7340"}) {
            Files.writeString(f, remote.replace("192.168.100.2:7340", bad));
            assertTrue(assertThrows(ConfigException.class, () -> PlatformLoader.load(f)).getMessage()
                    .contains("IP:PORT"), bad);
        }
    }
}
