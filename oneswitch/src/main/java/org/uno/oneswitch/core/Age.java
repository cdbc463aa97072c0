package org.uno.oneswitch.core;

/**
 * How long a flow entry has been installed, as OpenFlow reports it (seconds and nanoseconds), in
 * milliseconds like Open vSwitch, so `ovs-ofctl dump-flows` shows the same precision as on a bridge.
 */
record Age(long seconds, long nanos) {
    static Age since(long installedNanos, long nowNanos) {
        long ms = Math.max(0, nowNanos - installedNanos) / 1_000_000L;
        return new Age(ms / 1000, (ms % 1000) * 1_000_000L);
    }
}
