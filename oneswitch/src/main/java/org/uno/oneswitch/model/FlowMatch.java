package org.uno.oneswitch.model;

import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.protocol.match.MatchFields;
import org.projectfloodlight.openflow.protocol.oxm.OFOxm;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.OFValueType;

/**
 * An OpenFlow 1.3 match as a set of canonical OXM fields, one per field type.
 *
 * <p>Invariant: every stored OXM is canonical (a full mask is stored unmasked, an all-zero mask is
 * not stored at all), so two matches that select the same packets by the same fields are
 * {@link #equals equal} regardless of the order or encoding the controller used.
 */
public final class FlowMatch {
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);

    /** The match that selects every packet. */
    public static final FlowMatch ANY = new FlowMatch(new EnumMap<>(MatchFields.class));

    private final Map<MatchFields, OFOxm<?>> fields;
    private final int hash;

    private FlowMatch(EnumMap<MatchFields, OFOxm<?>> fields) {
        this.fields = Collections.unmodifiableMap(fields);
        this.hash = fields.hashCode();
    }

    /**
     * Builds a match from OXMs; each is canonicalised and a later OXM for the same field replaces
     * an earlier one (callers that must reject duplicates check before).
     */
    public static FlowMatch of(Iterable<? extends OFOxm<?>> oxms) {
        EnumMap<MatchFields, OFOxm<?>> map = new EnumMap<>(MatchFields.class);
        for (OFOxm<?> oxm : oxms) {
            OFOxm<?> canonical = oxm.getCanonical();
            if (canonical != null) {
                map.put(canonical.getMatchField().id, canonical);
            }
        }
        return new FlowMatch(map);
    }

    /** The OXMs of this match, in field order. */
    public Collection<OFOxm<?>> oxms() {
        return fields.values();
    }

    /** The field types this match constrains. */
    public Set<MatchFields> fieldTypes() {
        return fields.keySet();
    }

    public boolean has(MatchFields field) {
        return fields.containsKey(field);
    }

    public Optional<OFOxm<?>> get(MatchFields field) {
        return Optional.ofNullable(fields.get(field));
    }

    /** The exact in_port this match requires, if any. */
    public Optional<OFPort> inPort() {
        OFOxm<?> oxm = fields.get(MatchFields.IN_PORT);
        return oxm == null ? Optional.empty() : Optional.of((OFPort) oxm.getValue());
    }

    /** This match with in_port set to {@code port} (replacing any previous in_port). */
    public FlowMatch withInPort(OFPort port) {
        EnumMap<MatchFields, OFOxm<?>> map = copy();
        map.put(MatchFields.IN_PORT, OF13.oxms().inPort(port));
        return new FlowMatch(map);
    }

    /** This match without the given fields. */
    public FlowMatch without(Set<MatchFields> removed) {
        EnumMap<MatchFields, OFOxm<?>> map = copy();
        map.keySet().removeAll(removed);
        return new FlowMatch(map);
    }

    /** This match with the fields of {@code extra} added (replacing the same fields). */
    public FlowMatch with(FlowMatch extra) {
        EnumMap<MatchFields, OFOxm<?>> map = copy();
        map.putAll(extra.fields);
        return new FlowMatch(map);
    }

    /** The fields of this match that are in {@code kept}, as a match of their own. */
    public FlowMatch only(Set<MatchFields> kept) {
        EnumMap<MatchFields, OFOxm<?>> map = copy();
        map.keySet().retainAll(kept);
        return new FlowMatch(map);
    }

    private EnumMap<MatchFields, OFOxm<?>> copy() {
        EnumMap<MatchFields, OFOxm<?>> map = new EnumMap<>(MatchFields.class);
        map.putAll(fields);
        return map;
    }

    /**
     * True when every packet selected by {@code narrower} is selected by this match (OpenFlow's
     * non-strict flow_mod and flow-stats filter semantics, field by field).
     */
    public boolean covers(FlowMatch narrower) {
        for (Map.Entry<MatchFields, OFOxm<?>> e : fields.entrySet()) {
            OFOxm<?> other = narrower.fields.get(e.getKey());
            if (other == null || !covers(e.getValue(), other)) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when some packet may be selected by both matches. Conservative: fields are compared one
     * by one, so prerequisites that contradict each other are not noticed (it may answer true where
     * no packet exists, never false where one does).
     */
    public boolean overlaps(FlowMatch other) {
        Map<MatchFields, OFOxm<?>> small = fields.size() <= other.fields.size() ? fields : other.fields;
        Map<MatchFields, OFOxm<?>> large = small == fields ? other.fields : fields;
        for (Map.Entry<MatchFields, OFOxm<?>> e : small.entrySet()) {
            OFOxm<?> b = large.get(e.getKey());
            if (b != null && !overlaps(e.getValue(), b)) {
                return false;
            }
        }
        return true;
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static boolean covers(OFOxm wide, OFOxm narrow) {
        if (!wide.isMasked()) {
            return !narrow.isMasked() && wide.getValue().equals(narrow.getValue());
        }
        OFValueType mask = wide.getMask();
        if (narrow.isMasked() && !mask.applyMask(narrow.getMask()).equals(mask)) {
            return false;
        }
        return narrow.getValue().applyMask(mask).equals(wide.getValue().applyMask(mask));
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static boolean overlaps(OFOxm a, OFOxm b) {
        OFValueType va = a.getValue();
        OFValueType vb = b.getValue();
        if (a.isMasked()) {
            va = va.applyMask(a.getMask());
            vb = vb.applyMask(a.getMask());
        }
        if (b.isMasked()) {
            va = va.applyMask(b.getMask());
            vb = vb.applyMask(b.getMask());
        }
        return va.equals(vb);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FlowMatch m && hash == m.hash && fields.equals(m.fields);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        if (fields.isEmpty()) {
            return "any";
        }
        return fields.values().stream().map(FlowMatch::describe).collect(Collectors.joining(","));
    }

    private static String describe(OFOxm<?> oxm) {
        String name = oxm.getMatchField().getName();
        return oxm.isMasked() ? name + "=" + oxm.getValue() + "/" + oxm.getMask() : name + "=" + oxm.getValue();
    }
}
