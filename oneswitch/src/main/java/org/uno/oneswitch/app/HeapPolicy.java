package org.uno.oneswitch.app;

import java.lang.management.ManagementFactory;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *   <li>{@code MinHeapFreeRatio} / {@code MaxHeapFreeRatio}: after a cycle, the heap is shrunk to at
 *       most 1/(1-0.15) of what it holds, and kept at least 1/(1-0.05) of it;</li>
 *   <li>{@code G1PeriodicGCInterval}: a concurrent cycle when no collection ran for that long, so the
 *       shrink happens soon after an install ends, not at the next install.</li>
 * </ul>
 * On an idle OneSwitch with 100,000 rules the cycles cost no CPU that shows (2.6-2.7 s in 120 s, with
 * or without them) and its event loop ran late by over 10 ms once in 120 s, as without them; 100,000
 * crossing rules left 225 MiB resident after 30 s, against 400 MiB. An option the operator set on the
 * command line is left as it is.
 */
final class HeapPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(HeapPolicy.class);

    /** In the order they must be set: the minimum may never exceed the maximum. */
    static final Map<String, String> OPTIONS = options();

    private HeapPolicy() {
    }

    private static Map<String, String> options() {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("MinHeapFreeRatio", "5");
        options.put("MaxHeapFreeRatio", "15");
        options.put("G1PeriodicGCInterval", "5000");  // ms
        return Collections.unmodifiableMap(options);
    }

    /** Sets each option still at the JVM's default; returns what it set (the tests read it). */
    static Map<String, String> apply() {
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
        return set;
    }
}
