package org.uno.oneswitch.codec;

import java.util.List;

import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMeterConfig;
import org.projectfloodlight.openflow.protocol.OFMeterMod;
import org.projectfloodlight.openflow.protocol.OFMeterModCommand;
import org.projectfloodlight.openflow.protocol.OFMeterModFailedCode;
import org.uno.oneswitch.error.MeterModFailedException;
import org.uno.oneswitch.model.MeterModRequest;
import org.uno.oneswitch.model.VirtualMeter;

/**
 * Decodes a meter_mod of the virtual switch, refusing the ids an OpenFlow 1.3 switch refuses
 * (0, and the reserved ids above OFPM_MAX except OFPM_ALL for a delete); and encodes a virtual
 * meter as the meter_mod and the config entry that carry it. Flags and bands are checked against
 * the switches' meter features in the core, and by the switches themselves.
 */
public final class MeterModCodec {
    private MeterModCodec() {
    }

    public static MeterModRequest decode(OFMeterMod mm) throws MeterModFailedException {
        MeterModRequest.Command command = switch (mm.getCommand()) {
            case ADD -> MeterModRequest.Command.ADD;
            case MODIFY -> MeterModRequest.Command.MODIFY;
            case DELETE -> MeterModRequest.Command.DELETE;
            default -> throw new MeterModFailedException(OFMeterModFailedCode.BAD_COMMAND, "meter_mod command "
                    + mm.getCommand());
        };
        long id = mm.getMeterId();
        if (command == MeterModRequest.Command.DELETE) {
            if (id != MeterModRequest.ALL && (id == 0 || id > MeterModRequest.MAX)) {
                throw new MeterModFailedException(OFMeterModFailedCode.INVALID_METER, "meter id " + id);
            }
            return new MeterModRequest(command, new VirtualMeter(id, mm.getFlags(), List.of()));
        }
        if (id == 0 || id > MeterModRequest.MAX) {
            throw new MeterModFailedException(OFMeterModFailedCode.INVALID_METER, "meter id " + Long.toUnsignedString(id)
                    + " is " + (id == 0 ? "not a meter" : "reserved"));
        }
        return new MeterModRequest(command, new VirtualMeter(id, mm.getFlags(), mm.getMeters()));
    }

    /** The meter_mod that makes {@code m} so on a switch ({@code DELETE} needs only the id). */
    public static OFMeterMod.Builder message(OFFactory f, OFMeterModCommand command, VirtualMeter m) {
        return f.buildMeterMod().setCommand(command).setMeterId(m.id()).setFlags(m.flags()).setMeters(m.bands());
    }

    /** {@code m} as a METER_CONFIG entry. */
    public static OFMeterConfig config(OFFactory f, VirtualMeter m) {
        return f.buildMeterConfig().setMeterId(m.id()).setFlags(m.flags()).setEntries(m.bands()).build();
    }

    /** The meter a switch reported in a METER_CONFIG entry. */
    public static VirtualMeter installed(OFMeterConfig c) {
        return new VirtualMeter(c.getMeterId(), c.getFlags(), c.getEntries());
    }
}
