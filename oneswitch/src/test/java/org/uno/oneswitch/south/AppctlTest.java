package org.uno.oneswitch.south;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a switch daemon's control socket is: the platform's fixed name, or a system's default one. */
class AppctlTest {
    @TempDir
    Path dir;

    @Test
    void theGivenSocketWhenItExists() throws Exception {
        Files.createFile(dir.resolve("ovs-vswitchd.ctl"));
        Files.writeString(dir.resolve("ovs-vswitchd.pid"), "4242\n");
        String given = dir.resolve("ovs-vswitchd.ctl").toString();
        assertEquals(given, Appctl.controlSocket(given));
    }

    @Test
    void aSystemSwitchsSocketCarriesItsPid() throws Exception {
        Files.writeString(dir.resolve("ovs-vswitchd.pid"), "4242\n");
        assertEquals(dir.resolve("ovs-vswitchd.4242.ctl").toString(),
                Appctl.controlSocket(dir.resolve("ovs-vswitchd.ctl").toString()));
    }

    @Test
    void theGivenSocketWithoutAPidfile() {
        String given = dir.resolve("ovs-vswitchd.ctl").toString();
        assertEquals(given, Appctl.controlSocket(given));
    }
}
