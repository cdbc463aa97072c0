package org.uno.oneswitch.model;

import java.util.List;
import java.util.Set;

import org.projectfloodlight.openflow.protocol.OFMeterFlags;
import org.projectfloodlight.openflow.protocol.meterband.OFMeterBand;

/**
 * A meter of the virtual switch (OpenFlow 1.3 §5.7), as the controller configured it. Each
 * physical switch holds a copy with the same id; the rules that apply it all run on one switch (the
 * host when their packets enter on two: {@code core/MeterSites}), so one copy sees all its packets.
 *
 * @param id    the meter id (1..{@link MeterModRequest#MAX})
 * @param flags rate unit (KBPS or PKTPS), BURST, STATS
 * @param bands its bands, in the controller's order
 */
public record VirtualMeter(long id, Set<OFMeterFlags> flags, List<OFMeterBand> bands) {
    public VirtualMeter {
        flags = Set.copyOf(flags);
        bands = List.copyOf(bands);
    }
}
