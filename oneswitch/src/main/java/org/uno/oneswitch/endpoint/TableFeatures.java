package org.uno.oneswitch.endpoint;

import java.util.ArrayList;
import java.util.List;

import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFTableFeatureProp;
import org.projectfloodlight.openflow.protocol.OFTableFeatures;
import org.projectfloodlight.openflow.protocol.actionid.OFActionId;
import org.projectfloodlight.openflow.protocol.actionid.OFActionIds;
import org.projectfloodlight.openflow.protocol.ver13.OFActionTypeSerializerVer13;
import org.projectfloodlight.openflow.protocol.instructionid.OFInstructionId;
import org.projectfloodlight.openflow.types.TableId;
import org.projectfloodlight.openflow.types.U32;
import org.projectfloodlight.openflow.types.U64;
import org.projectfloodlight.openflow.types.U8;
import org.uno.oneswitch.codec.MatchCodec;

/**
 * The TABLE_FEATURES the virtual switch announces: tables 0..n-1, each matching every field
 * OneSwitch accepts, with goto to any later table, and the actions and instructions it translates
 * (the meter instruction when the switches have meters). A table-miss rule is translated like any other, so each {@code *_MISS} property is
 * the same as its regular one; the specification allows leaving those out, but Floodlight reads a
 * missing APPLY_ACTIONS_MISS as "no actions" and then installs no table-miss rule, so they are sent,
 * as Open vSwitch sends them.
 */
final class TableFeatures {
    private TableFeatures() {
    }

    static List<OFTableFeatures> of(OFFactory f, int tables, boolean meters) {
        List<U32> matchIds = MatchCodec.oxmHeaders(f, MatchCodec.supportedFields());
        List<U32> setIds = MatchCodec.oxmHeaders(f, MatchCodec.settableFields());
        List<OFActionId> actions = actionIds(f.actionIds());
        List<OFTableFeatures> out = new ArrayList<>(tables);
        for (int t = 0; t < tables; t++) {
            List<U8> next = new ArrayList<>();
            for (int n = t + 1; n < tables; n++) {
                next.add(U8.of((short) n));
            }
            List<OFInstructionId> ins = new ArrayList<>(List.of(f.instructionIds().applyActions(),
                    f.instructionIds().writeActions(), f.instructionIds().clearActions(),
                    f.instructionIds().writeMetadata()));
            if (meters) {
                ins.add(f.instructionIds().meter());
            }
            if (t < tables - 1) {
                ins.add(f.instructionIds().gotoTable());
            }
            List<OFTableFeatureProp> props = List.of(f.tableFeaturePropInstructions(ins),
                    f.tableFeaturePropInstructionsMiss(ins), f.tableFeaturePropNextTables(next),
                    f.tableFeaturePropNextTablesMiss(next), f.tableFeaturePropWriteActions(actions),
                    f.tableFeaturePropWriteActionsMiss(actions), f.tableFeaturePropApplyActions(actions),
                    f.tableFeaturePropApplyActionsMiss(actions), f.tableFeaturePropMatch(matchIds),
                    f.tableFeaturePropWildcards(matchIds), f.tableFeaturePropWriteSetfield(setIds),
                    f.tableFeaturePropWriteSetfieldMiss(setIds), f.tableFeaturePropApplySetfield(setIds),
                    f.tableFeaturePropApplySetfieldMiss(setIds));
            out.add(f.buildTableFeatures().setTableId(TableId.of(t)).setName("table" + t)
                    .setMetadataMatch(U64.NO_MASK).setMetadataWrite(U64.NO_MASK).setMaxEntries(1_000_000)
                    .setProperties(props).build());
        }
        return out;
    }

    private static List<OFActionId> actionIds(OFActionIds a) {
        return List.of(a.output(), a.copyTtlOut(), a.copyTtlIn(), a.setMplsTtl(), a.decMplsTtl(), a.pushVlan(),
                a.popVlan(), a.pushMpls(), a.popMpls(), a.setQueue(), a.group(), a.setNwTtl(), a.decNwTtl(),
                a.setField());
    }

    /** The actions OneSwitch translates as a bitmap of OpenFlow 1.3 action types (GROUP_FEATURES' form). */
    static long actionBitmap(OFFactory f) {
        long bits = 0;
        for (OFActionId id : actionIds(f.actionIds())) {
            bits |= 1L << OFActionTypeSerializerVer13.toWireValue(id.getType());
        }
        return bits;
    }
}
