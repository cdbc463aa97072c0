package org.uno.oneswitch.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;

/** The heap policy sets the JVM's options it finds at their defaults, and leaves alone what anyone else set. */
class HeapPolicyTest {
    private final HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);

    @Test
    void optionsAtTheirDefaultsAreSetAndThenLeftAlone() throws Exception {
        Map<String, VMOption> before = new HashMap<>();
        HeapPolicy.OPTIONS.keySet().forEach(name -> before.put(name, vm.getVMOption(name)));
        HeapPolicy.Applied applied = HeapPolicy.apply();
        applied.following().close();
        for (String name : HeapPolicy.OPTIONS.keySet()) {
            VMOption option = vm.getVMOption(name);
            if (before.get(name).getOrigin() == VMOption.Origin.DEFAULT) {
                assertEquals(HeapPolicy.OPTIONS.get(name), applied.set().get(name), name);
                assertEquals(HeapPolicy.OPTIONS.get(name), option.getValue(), name);
                assertEquals(VMOption.Origin.MANAGEMENT, option.getOrigin(), name);
            } else {  // the test's JVM was started with it, or another test set it
                assertFalse(applied.set().containsKey(name), name);
                assertEquals(before.get(name).getValue(), option.getValue(), name);
            }
        }
        // what is set is no longer a default: a second start (or an operator's own setting) is not overridden
        HeapPolicy.Applied again = HeapPolicy.apply();
        again.following().close();
        assertEquals(Map.of(), again.set());
    }

    @Test
    void thePeriodicCollectionStopsAfterItsCyclesInARowAndComesBackWhenTheHeapGrew() throws Exception {
        assumeTrue(ManagementFactory.getGarbageCollectorMXBeans().stream()
                .anyMatch(b -> b.getName().startsWith("G1 ")), "only G1 has a periodic collection");
        String before = vm.getVMOption(HeapPolicy.PERIODIC).getValue();
        String maxFreeBefore = maxFree();
        AutoCloseable following = HeapPolicy.follow(vm, new PeriodicCycles(2, 200, 100), "15");
        try {
            assertEquals("200", periodic());  // quiet first
            long[] mostCommitted = {committed()};
            within(10_000, () -> {
                mostCommitted[0] = Math.max(mostCommitted[0], committed());
                return periodic().equals("0");
            });
            assertEquals("15", maxFree());  // idle: the periodic cycles may shrink the heap
            long collections = collections();
            Thread.sleep(500);  // five steps, two quiet intervals: none runs now
            assertEquals(collections, collections());
            // a collection turns it on again only once the heap has grown: this one did not
            System.gc();
            Thread.sleep(300);
            assertEquals("0", periodic());
            assertEquals(HeapPolicy.BUSY_MAX_FREE, maxFree());  // not idle: the heap keeps what it has
            // ... and this one did (past a tenth more than it had when the cycles ended)
            byte[][] held = new byte[(int) ((mostCommitted[0] + mostCommitted[0] / 5 + (16 << 20)) >> 20)][];
            for (int i = 0; i < held.length; i++) {
                held[i] = new byte[1 << 20];
            }
            System.gc();
            within(10_000, () -> periodic().equals("200"));
            assertTrue(held[held.length - 1].length > 0);
            held = null;
            within(10_000, () -> maxFree().equals("15"));  // its cycles set the idle ratio again
        } finally {
            following.close();
            vm.setVMOption(HeapPolicy.PERIODIC, before);
            vm.setVMOption(HeapPolicy.MAX_FREE, maxFreeBefore);
        }
    }

    private String maxFree() {
        return vm.getVMOption(HeapPolicy.MAX_FREE).getValue();
    }

    private String periodic() {
        return vm.getVMOption(HeapPolicy.PERIODIC).getValue();
    }

    private static long committed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
    }

    private static long collections() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(GarbageCollectorMXBean::getCollectionCount).sum();
    }

    private static void within(long millis, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.currentTimeMillis() + millis;
        while (!condition.getAsBoolean()) {
            assertTrue(System.currentTimeMillis() < deadline, "not within " + millis + " ms");
            Thread.sleep(10);
        }
    }
}
