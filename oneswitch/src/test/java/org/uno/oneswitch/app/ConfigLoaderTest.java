package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.uno.oneswitch.model.PortSpec;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    @Test
    void defaultsFollowTheDesignContract() throws Exception {
        Config c = ConfigLoader.load(new String[0]).config();
        assertEquals(List.of(new InetSocketAddress("127.0.0.1", 6653)), c.controllers());
        assertEquals(Optional.of(new InetSocketAddress("127.0.0.1", 6634)), c.listen());
        assertEquals(new InetSocketAddress("127.0.0.1", 6643), c.southbound());
        assertEquals(Optional.of(new InetSocketAddress("127.0.0.1", 8181)), c.rest());
        assertEquals(Set.of(PortSpec.Kind.VM, PortSpec.Kind.WIRE), c.autoMap());
    }

    @Test
    void flagsOverrideTheFileWhichOverridesDefaults() throws Exception {
        Path f = dir.resolve("oneswitch.yaml");
        Files.writeString(f, "controllers: [tcp:127.0.0.1:7000, tcp:127.0.0.1:7001]\ntables: 8\nrest: none\n"
                + "auto_map: []\n");
        Config c = ConfigLoader.load(new String[] {"--config", f.toString(), "--tables", "16"}).config();
        assertEquals(2, c.controllers().size());
        assertEquals(16, c.tables());
        assertEquals(Optional.empty(), c.rest());
        assertEquals(Set.of(), c.autoMap());
        assertEquals(List.of(), ConfigLoader.load(new String[] {"--controller", "none"}).config().controllers());
    }

    @Test
    void badInputIsRefusedWithAReason() throws Exception {
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, "tabels: 8\n");
        assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--config", f.toString()}))
                .getMessage().contains("unknown key 'tabels'"));
        assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--bogus", "1"}));
        assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--controller", "udp:1.2.3.4:5"}));
        assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--auto-map", "pcie"}));
        assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--datapath-id", "xyz"}));
        assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--tables"}));
    }

    @Test
    void anSslSouthboundNeedsItsFilesAndTheyNeedIt() throws Exception {
        assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--southbound",
                "pssl:6643"})).getMessage().contains("needs ssl_private_key, ssl_certificate and ssl_ca_cert"));
        assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--ca-cert", "x.pem"}))
                .getMessage().contains("are for a pssl: southbound"));
        assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--southbound",
                "pssl:6643", "--private-key", "k", "--certificate", "c", "--ca-cert", "ca"})).getMessage()
                .contains("cannot read k"));
        assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(new String[] {"--rest-token-file",
                dir.resolve("missing").toString()})).getMessage().contains("cannot read rest_token_file"));
    }
}
