package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;

/** The heap policy sets the JVM's options it finds at their defaults, and leaves alone what anyone else set. */
class HeapPolicyTest {
    @Test
    void optionsAtTheirDefaultsAreSetAndThenLeftAlone() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        Map<String, String> set = HeapPolicy.apply();
        for (String name : HeapPolicy.OPTIONS.keySet()) {
            VMOption option = vm.getVMOption(name);
            if (set.containsKey(name)) {
                assertEquals(HeapPolicy.OPTIONS.get(name), option.getValue(), name);
                assertEquals(VMOption.Origin.MANAGEMENT, option.getOrigin(), name);
            } else {  // the test's JVM was started with it
                assertEquals(VMOption.Origin.VM_CREATION, option.getOrigin(), name);
            }
        }
        // what is set is no longer a default: a second start (or an operator's own setting) is not overridden
        assertEquals(Map.of(), HeapPolicy.apply());
    }
}
