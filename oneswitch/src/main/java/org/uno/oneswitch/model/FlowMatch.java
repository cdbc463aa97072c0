package org.uno.oneswitch.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
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
    private static final OFOxm<?>[] NONE = new OFOxm<?>[0];

    /** The in_port fields of all matches: one object per port. */
    private static final Interner<OFOxm<?>> IN_PORTS = new Interner<>(4096);

    /** The match that selects every packet. */
    public static final FlowMatch ANY = new FlowMatch(NONE);

    /** Canonical OXMs sorted by field (matches have a handful of fields: arrays beat maps here). */
    private final OFOxm<?>[] fields;
    private final int hash;

    private FlowMatch(OFOxm<?>[] sortedFields) {
        this.fields = sortedFields;
        this.hash = Arrays.hashCode(sortedFields);
    }

    /**
     * Builds a match from OXMs; each is canonicalised and a later OXM for the same field replaces
     * an earlier one (callers that must reject duplicates check before).
     */
    public static FlowMatch of(Iterable<? extends OFOxm<?>> oxms) {
        List<OFOxm<?>> list = new ArrayList<>();
        for (OFOxm<?> oxm : oxms) {
            OFOxm<?> canonical = oxm.getCanonical();
            if (canonical != null) {
                list.removeIf(o -> o.getMatchField().id == canonical.getMatchField().id);
                list.add(canonical);
            }
        }
        return sorted(list);
    }

    private static FlowMatch sorted(List<OFOxm<?>> list) {
        if (list.isEmpty()) {
            return ANY;
        }
        OFOxm<?>[] arr = list.toArray(NONE);
        for (int i = 0; i < arr.length; i++) {
            if (arr[i].getMatchField().id == MatchFields.IN_PORT) {
                arr[i] = IN_PORTS.intern(arr[i]);
            }
        }
        Arrays.sort(arr, BY_FIELD);
        return new FlowMatch(arr);
    }

    private static final java.util.Comparator<OFOxm<?>> BY_FIELD =
            java.util.Comparator.comparingInt(o -> o.getMatchField().id.ordinal());

    /** The OXMs of this match, in field order. */
    public List<OFOxm<?>> oxms() {
        return List.of(fields);
    }

    /** The field types this match constrains. */
    public Set<MatchFields> fieldTypes() {
        Set<MatchFields> out = EnumSet.noneOf(MatchFields.class);
        for (OFOxm<?> o : fields) {
            out.add(o.getMatchField().id);
        }
        return out;
    }

    public boolean has(MatchFields field) {
        return find(field) != null;
    }

    public Optional<OFOxm<?>> get(MatchFields field) {
        return Optional.ofNullable(find(field));
    }

    private OFOxm<?> find(MatchFields field) {
        for (OFOxm<?> o : fields) {
            if (o.getMatchField().id == field) {
                return o;
            }
        }
        return null;
    }

    /** The exact in_port this match requires, if any. */
    public Optional<OFPort> inPort() {
        OFOxm<?> oxm = find(MatchFields.IN_PORT);
        return oxm == null ? Optional.empty() : Optional.of((OFPort) oxm.getValue());
    }

    /** This match with in_port set to {@code port} (replacing any previous in_port). */
    public FlowMatch withInPort(OFPort port) {
        List<OFOxm<?>> list = copyWithout(EnumSet.of(MatchFields.IN_PORT));
        list.add(OF13.oxms().inPort(port));
        return sorted(list);
    }

    /** This match with {@code field} added (replacing any previous value of its field). */
    public FlowMatch with(OFOxm<?> field) {
        List<OFOxm<?>> list = copyWithout(EnumSet.of(field.getMatchField().id));
        list.add(field);
        return sorted(list);
    }

    /** This match without the given fields. */
    public FlowMatch without(Set<MatchFields> removed) {
        return sorted(copyWithout(removed));
    }

    /** The fields of this match that are in {@code kept}, as a match of their own. */
    public FlowMatch only(Set<MatchFields> kept) {
        List<OFOxm<?>> list = new ArrayList<>(fields.length);
        for (OFOxm<?> o : fields) {
            if (kept.contains(o.getMatchField().id)) {
                list.add(o);
            }
        }
        return sorted(list);
    }

    private List<OFOxm<?>> copyWithout(Set<MatchFields> removed) {
        List<OFOxm<?>> list = new ArrayList<>(fields.length + 1);
        for (OFOxm<?> o : fields) {
            if (!removed.contains(o.getMatchField().id)) {
                list.add(o);
            }
        }
        return list;
    }

    /**
     * True when every packet selected by {@code narrower} is selected by this match (OpenFlow's
     * non-strict flow_mod and flow-stats filter semantics, field by field).
     */
    public boolean covers(FlowMatch narrower) {
        for (OFOxm<?> wide : fields) {
            OFOxm<?> other = narrower.find(wide.getMatchField().id);
            if (other == null || !covers(wide, other)) {
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
        for (OFOxm<?> a : fields) {
            OFOxm<?> b = other.find(a.getMatchField().id);
            if (b != null && !overlaps(a, b)) {
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
        return o instanceof FlowMatch m && hash == m.hash && Arrays.equals(fields, m.fields);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        if (fields.length == 0) {
            return "any";
        }
        return Arrays.stream(fields).map(FlowMatch::describe).collect(Collectors.joining(","));
    }

    private static String describe(OFOxm<?> oxm) {
        String name = oxm.getMatchField().getName();
        return oxm.isMasked() ? name + "=" + oxm.getValue() + "/" + oxm.getMask() : name + "=" + oxm.getValue();
    }
}
