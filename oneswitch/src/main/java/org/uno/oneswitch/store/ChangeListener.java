package org.uno.oneswitch.store;

import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;

/**
 * Hears every change of the virtual switch's stores, with the value it replaced (null when there
 * was none), before the change is made: what a write-ahead log of the state needs, both to write
 * the change and to undo it.
 */
public interface ChangeListener {
    /** Hears nothing (no state file). */
    ChangeListener NONE = new ChangeListener() {
        @Override
        public void ruleChanged(long id, VirtualRule before) {
        }

        @Override
        public void groupChanged(long id, VirtualGroup before) {
        }

        @Override
        public void meterChanged(long id, VirtualMeter before) {
        }

        @Override
        public void portMapChanged(PortMap before) {
        }
    };

    /** Rule {@code id} is about to be stored or removed; {@code before} is the rule it was, or null. */
    void ruleChanged(long id, VirtualRule before);

    /** Group {@code id} is about to be stored or removed; {@code before} is the group it was, or null. */
    void groupChanged(long id, VirtualGroup before);

    /** Meter {@code id} is about to be stored or removed; {@code before} is the meter it was, or null. */
    void meterChanged(long id, VirtualMeter before);

    /** The port map is about to be replaced; {@code before} is the map it was. */
    void portMapChanged(PortMap before);
}
