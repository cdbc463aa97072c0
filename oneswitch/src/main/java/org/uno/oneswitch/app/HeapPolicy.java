package org.uno.oneswitch.app;

import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;

/**
 * How much heap OneSwitch keeps when a bulk change is over, set by OneSwitch itself so that it runs
 * with the JVM's default sizing and no launcher options (issue 18).
 *
 * <p>The JVM's defaults keep the heap it grew to during an install (G1 gives memory back only below 30%
 * occupancy, and only after a collection that an idle process never has): 100,000 rules left about
 * 280 MB committed for 66-112 MB live. OneSwitch's data are a few large primitive arrays, so a
 * concurrent cycle on an idle OneSwitch has little to mark, and it is what gives the memory back. These
 * are the JVM's manageable options, set at run time through its diagnostic bean:
 * <ul>
 *   <li>{@code MinHeapFreeRatio} / {@code MaxHeapFreeRatio}: after a cycle of an idle OneSwitch, the heap
 *       is shrunk to at most 1/(1-0.15) of what it holds, and kept at least 1/(1-0.05) of it;</li>
 *   <li>{@code G1PeriodicGCInterval}: a concurrent cycle when no collection ran for that long, so the
 *       shrink happens once an install is over, not at the next install. The first comes after a quiet
 *       {@value #QUIET_MS} ms, the next ones {@value #STEP_MS} ms apart, and after
 *       {@value #PERIODIC_CYCLES} in a row it goes off until the heap has grown ({@link PeriodicCycles}):
 *       left on, an idle OneSwitch paused every 5 s, 7-22 ms each time on a busy machine, with nothing
 *       left to give back.</li>
 * </ul>
 * On an idle OneSwitch with 100,000 rules the cycles cost no CPU that shows (2.6-2.7 s in 120 s, with
 * or without them) and its event loop ran late by over 10 ms once in 120 s, as without them; 100,000
 * crossing rules left 225 MiB resident after 30 s, against 400 MiB. An option the operator set on the
 * command line is left as it is.
 *
 * <p>While collections come from allocation (OneSwitch is busy), {@code MaxHeapFreeRatio} is
 * {@value #BUSY_MAX_FREE}: the heap keeps what it committed, and only a periodic collection sets the ratio
 * that shrinks it. Memory given back is taken again, page by page, as page faults on the event loop, about
 * 10 µs each on this VM; an install that grows the heap back by a page every flow_mod runs at half the
 * rate of one that does not. Shrunk at the concurrent cycles of an install, the heap faulted back within
 * seconds: five 200,000-rule installs 25 s apart ran at 40,000-61,000 flow_mods/s with 0.1-0.7 faults per
 * flow_mod, against 65,000-72,000/s with 0.2-0.5 once only a periodic collection shrank it;
 * 87,000-104,000/s in installs without a fault. With the periodic collection after 5 s, a controller's
 * installs 15-30 s apart each grew the heap back (0.6-0.7 faults per streamed flow_mod in the flow_mod
 * bench): a quiet minute first keeps what such bursts need. The JVM's own uncommitting collectors wait
 * five minutes ({@code ShenandoahUncommitDelay}, {@code ZUncommitDelay}).
 */
final class HeapPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(HeapPolicy.class);

    static final String PERIODIC = "G1PeriodicGCInterval";
    static final String MAX_FREE = "MaxHeapFreeRatio";
    /** {@code MaxHeapFreeRatio} while OneSwitch is busy: no shrink. */
    static final String BUSY_MAX_FREE = "100";
    private static final String PERIODIC_CAUSE = "G1 Periodic Collection";
    static final int PERIODIC_CYCLES = 12;
    /** How long without a collection before memory goes back, and then between the periodic collections. */
    static final long QUIET_MS = 60_000;
    static final long STEP_MS = 5_000;

    /** In the order they must be set: the minimum may never exceed the maximum. */
    static final Map<String, String> OPTIONS = options();

    /** What {@link #apply} did: the options it set, and what follows the collections (closed by tests). */
    record Applied(Map<String, String> set, AutoCloseable following) {
    }

    private HeapPolicy() {
    }

    private static Map<String, String> options() {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("MinHeapFreeRatio", "5");
        options.put(MAX_FREE, "15");  // idle
        options.put(PERIODIC, Long.toString(QUIET_MS));
        return Collections.unmodifiableMap(options);
    }

    /** Sets each option still at the JVM's default, and follows the collections if it set the periodic one. */
    static Applied apply() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        Map<String, String> set = new LinkedHashMap<>();
        for (Map.Entry<String, String> option : OPTIONS.entrySet()) {
            VMOption current = vm.getVMOption(option.getKey());
            if (current.getOrigin() != VMOption.Origin.DEFAULT || !current.isWriteable()) {
                continue;
            }
            try {
                vm.setVMOption(option.getKey(), option.getValue());
                set.put(option.getKey(), option.getValue());
            } catch (IllegalArgumentException e) {  // out of range against an option the operator set
                LOG.warn("heap policy: {} left at {}: {}", option.getKey(), current.getValue(), e.getMessage());
            }
        }
        LOG.debug("heap policy: {}", set);
        AutoCloseable following = set.containsKey(PERIODIC)
                ? follow(vm, new PeriodicCycles(PERIODIC_CYCLES, QUIET_MS, STEP_MS), set.get(MAX_FREE)) : () -> { };
        return new Applied(Collections.unmodifiableMap(set), following);
    }

    /**
     * Sets the periodic collection's interval to what {@code cycles} says, now and after each collection, and,
     * unless {@code idleMaxFree} is null, sets {@code MaxHeapFreeRatio} to it after a periodic collection and to
     * {@value #BUSY_MAX_FREE} after any other; closing the result stops following (the options stay as they are).
     */
    static AutoCloseable follow(HotSpotDiagnosticMXBean vm, PeriodicCycles cycles, String idleMaxFree) {
        String[] maxFree = {idleMaxFree};
        NotificationListener listener = (notification, handback) -> {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
                return;
            }
            String cause = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData()).getGcCause();
            long committed = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
            boolean periodic = PERIODIC_CAUSE.equals(cause);
            synchronized (cycles) {  // one notification at a time, and the options set in their order
                // set before the periodic cycle's remark, which shrinks the heap (a later cycle does if this one is late)
                String max = periodic ? idleMaxFree : BUSY_MAX_FREE;
                if (idleMaxFree != null && !max.equals(maxFree[0])) {
                    vm.setVMOption(MAX_FREE, max);
                    maxFree[0] = max;
                }
                long was = cycles.interval();
                long next = cycles.afterCollection(periodic, committed);
                if (next != was) {
                    vm.setVMOption(PERIODIC, Long.toString(next));
                }
            }
        };
        List<NotificationEmitter> emitters = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .filter(NotificationEmitter.class::isInstance).map(NotificationEmitter.class::cast).toList();
        synchronized (cycles) {
            emitters.forEach(e -> e.addNotificationListener(listener, null, null));
            vm.setVMOption(PERIODIC, Long.toString(cycles.interval()));
        }
        return () -> {
            for (NotificationEmitter e : emitters) {
                try {
                    e.removeNotificationListener(listener);
                } catch (ListenerNotFoundException ignored) {  // already removed
                }
            }
        };
    }
}
