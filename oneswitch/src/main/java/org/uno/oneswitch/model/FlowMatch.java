package org.uno.oneswitch.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
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

    /*
     * Canonical OXMs sorted by field (matches have a handful of fields: arrays beat maps here). The
     * first two are fields of their own, as most matches have at most two (a rule keeps two matches,
     * and an array each would be two more objects for the collector to copy); the rest are in more.
     */
    private final OFOxm<?> first;    // null when there is none
    private final OFOxm<?> second;   // null when there are fewer than two
    private final OFOxm<?>[] more;   // the third on, or NONE
    private final int hash;

    private FlowMatch(OFOxm<?>[] sortedFields) {
        int n = sortedFields.length;
        this.first = n > 0 ? sortedFields[0] : null;
        this.second = n > 1 ? sortedFields[1] : null;
        this.more = n > 2 ? Arrays.copyOfRange(sortedFields, 2, n) : NONE;
        this.hash = Arrays.hashCode(sortedFields);
    }

    private int size() {
        return first == null ? 0 : second == null ? 1 : 2 + more.length;
    }

    private OFOxm<?> field(int i) {
        return i == 0 ? first : i == 1 ? second : more[i - 2];
    }

    private OFOxm<?>[] fields() {
        OFOxm<?>[] out = new OFOxm<?>[size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = field(i);
        }
        return out;
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
        return List.of(fields());
    }

    /** The field types this match constrains. */
    public Set<MatchFields> fieldTypes() {
        Set<MatchFields> out = EnumSet.noneOf(MatchFields.class);
        for (int i = 0, n = size(); i < n; i++) {
            out.add(field(i).getMatchField().id);
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
        for (int i = 0, n = size(); i < n; i++) {
            OFOxm<?> o = field(i);
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
        List<OFOxm<?>> list = new ArrayList<>(size());
        for (OFOxm<?> o : fields()) {
            if (kept.contains(o.getMatchField().id)) {
                list.add(o);
            }
        }
        return sorted(list);
    }

    private List<OFOxm<?>> copyWithout(Set<MatchFields> removed) {
        List<OFOxm<?>> list = new ArrayList<>(size() + 1);
        for (OFOxm<?> o : fields()) {
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
        for (int i = 0, n = size(); i < n; i++) {
            OFOxm<?> wide = field(i);
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
        for (int i = 0, n = size(); i < n; i++) {
            OFOxm<?> a = field(i);
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
        return o instanceof FlowMatch m && hash == m.hash && Objects.equals(first, m.first)
                && Objects.equals(second, m.second) && Arrays.equals(more, m.more);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        if (first == null) {
            return "any";
        }
        return Arrays.stream(fields()).map(FlowMatch::describe).collect(Collectors.joining(","));
    }

    private static String describe(OFOxm<?> oxm) {
        String name = oxm.getMatchField().getName();
        return oxm.isMasked() ? name + "=" + oxm.getValue() + "/" + oxm.getMask() : name + "=" + oxm.getValue();
    }
}
