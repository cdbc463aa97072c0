package org.uno.oneswitch.stats;

/**
 * What a switch's meters can do (OpenFlow 1.3 meter features): the largest meter id, band types and
 * flags as bitmaps (bit per OFPMBT_* and per OFPMF_* flag's ordinal), bands per meter and colours.
 */
public record MeterFeatures(long maxMeter, long bandTypes, long capabilities, int maxBands, int maxColor) {
    /** A switch without meters. */
    public static final MeterFeatures NONE = new MeterFeatures(0, 0, 0, 0, 0);
}
