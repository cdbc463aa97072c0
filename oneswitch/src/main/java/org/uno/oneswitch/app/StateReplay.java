package org.uno.oneswitch.app;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMeterMod;
import org.projectfloodlight.openflow.protocol.OFMeterModCommand;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.codec.FlowModCodec;
import org.uno.oneswitch.codec.GroupModCodec;
import org.uno.oneswitch.codec.MeterModCodec;
import org.uno.oneswitch.core.RuleCounters;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.PortNumbers;
import org.uno.oneswitch.model.RuleKey;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.Counts;
import org.uno.oneswitch.translate.Layout;
import org.uno.oneswitch.translate.RuleValidator;

/**
 * Reads the state file's records into the state they hold, checking every part: each record is an
 * object with exactly the fields its kind has, of the right types and ranges (a missing
 * {@code rules}, or {@code rules: {}}, is damage, never an empty table); every stored message is
 * an OpenFlow 1.3 ADD whose length matches its bytes and that decodes and validates like a
 * controller's request; records are numbered one after the other; a change record removes only
 * what exists; no two rules share an id or a (table, priority, match); the port map is a bijection.
 */
final class StateReplay {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();
    private static final Set<String> SNAPSHOT = Set.of("schema", "kind", "seq", "next_rule_id", "next_cookie",
            "port_map", "tags", "groups", "rules");
    private static final Set<String> CHANGES = Set.of("kind", "seq", "next_rule_id", "next_cookie", "rules",
            "deleted_rules", "groups", "deleted_groups");
    private static final Set<String> CHANGES_OPTIONAL = Set.of("port_map", "tags", "meters", "deleted_meters",
            "group_ids");
    private static final Set<String> PORT = Set.of("virtual_port", "switch", "ofport", "port", "name");
    private static final Set<String> RULE = Set.of("id", "installed_ms", "flow_mod");
    private static final long MAX_U32 = 0xffffffffL;

    /** A part of a record that is not what it must be. */
    private static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        Invalid(String reason) {
            super(reason);
        }
    }

    private final int tables;
    private final Map<Long, VirtualRule> rules = new LinkedHashMap<>();
    private final Map<Long, Long> installed = new HashMap<>();
    private final Map<Long, RuleCounters> counters = new HashMap<>();
    private final Map<Long, VirtualGroup> groups = new TreeMap<>();
    private final Map<Long, VirtualMeter> meters = new TreeMap<>();
    private List<PortMapping> ports = List.of();
    private Map<Integer, List<Integer>> tags = Map.of();
    private long seq;
    private long nextRuleId;
    private long nextCookie;

    private StateReplay(int tables) {
        this.tables = tables;
    }

    /** The state {@code records} hold, for a virtual switch with {@code tables} tables. */
    static SavedState replay(List<StateRecords.Record> records, int tables) throws StateRecords.DamagedException {
        StateReplay r = new StateReplay(tables);
        for (StateRecords.Record rec : records) {
            String where = "record " + (rec.index() + 1) + " at byte " + rec.offset();
            try {
                JsonNode root = JSON.readTree(rec.body());
                if (rec.index() == 0) {
                    r.snapshot(root);
                } else {
                    r.changes(root);
                }
            } catch (IOException e) {
                throw new StateRecords.DamagedException(where + ": not JSON: " + e.getMessage().lines().findFirst()
                        .orElse(""));
            } catch (Invalid | RuntimeException e) {
                throw new StateRecords.DamagedException(where + ": " + e.getMessage());
            }
        }
        try {
            return r.result();
        } catch (Invalid | RuntimeException e) {
            throw new StateRecords.DamagedException("after record " + records.size() + ": " + e.getMessage());
        }
    }

    private void snapshot(JsonNode root) throws Invalid {
        fields(root, "the snapshot", SNAPSHOT, Set.of("meters", "group_ids"));
        if (!root.get("schema").isTextual() || !StateFile.SCHEMA.equals(root.get("schema").asText())) {
            throw new Invalid("schema must be " + StateFile.SCHEMA + ", not " + root.get("schema"));
        }
        kind(root, "snapshot");
        seq = integer(root, "seq", 0, Long.MAX_VALUE);
        nextNumbers(root);
        ports = portMap(root);
        tags = tags(root);
        for (JsonNode g : array(root, "groups")) {
            VirtualGroup v = group(g);
            if (groups.put(v.id(), v) != null) {
                throw new Invalid("group " + v.id() + " is there twice");
            }
        }
        physicalGroupIds(root, groups.keySet());
        for (JsonNode m : optionalArray(root, "meters")) {
            VirtualMeter v = meter(m);
            if (meters.put(v.id(), v) != null) {
                throw new Invalid("meter " + v.id() + " is there twice");
            }
        }
        for (JsonNode n : array(root, "rules")) {
            fields(n, "a rule", RULE, Set.of("counters"));
            VirtualRule rule = rule(n);
            if (rules.containsKey(rule.id())) {
                throw new Invalid("rule id " + rule.id() + " is there twice");
            }
            put(rule, n);
            if (n.has("counters")) {
                counters.put(rule.id(), ruleCounters(n.get("counters")));
            }
        }
    }

    private void changes(JsonNode root) throws Invalid {
        fields(root, "a change record", CHANGES, CHANGES_OPTIONAL);
        kind(root, "changes");
        long n = integer(root, "seq", 0, Long.MAX_VALUE);
        if (n != seq + 1) {
            throw new Invalid("record number " + n + " follows " + seq);
        }
        seq = n;
        nextNumbers(root);
        for (JsonNode id : array(root, "deleted_rules")) {
            long r = id(id, "deleted_rules");
            if (rules.remove(r) == null) {
                throw new Invalid("deletes rule " + r + ", which does not exist");
            }
            installed.remove(r);
            counters.remove(r);
        }
        for (JsonNode id : array(root, "deleted_groups")) {
            long g = number(id, "a group id in 'deleted_groups'", 0, OFGroup.MAX.getGroupNumber() & MAX_U32);  // OpenFlow has a group 0
            if (groups.remove(g) == null) {
                throw new Invalid("deletes group " + g + ", which does not exist");
            }
        }
        Set<Long> written = new HashSet<>();
        for (JsonNode g : array(root, "groups")) {
            VirtualGroup v = group(g);
            groups.put(v.id(), v);
            written.add(v.id());
        }
        if (!written.isEmpty() || root.has("group_ids")) {   // a record without groups changes no physical id
            physicalGroupIds(root, written);
        }
        for (JsonNode id : optionalArray(root, "deleted_meters")) {
            long m = id(id, "deleted_meters");
            if (meters.remove(m) == null) {
                throw new Invalid("deletes meter " + m + ", which does not exist");
            }
        }
        for (JsonNode m : optionalArray(root, "meters")) {
            VirtualMeter v = meter(m);
            meters.put(v.id(), v);
        }
        for (JsonNode r : array(root, "rules")) {
            fields(r, "a rule", RULE, Set.of());
            put(rule(r), r);
        }
        if (root.has("port_map")) {
            ports = portMap(root);
        }
        if (root.has("tags")) {
            tags = tags(root);
        }
    }

    private SavedState result() throws Invalid {
        Set<RuleKey> keys = new HashSet<>();
        for (VirtualRule r : rules.values()) {
            if (!keys.add(r.key())) {
                throw new Invalid("two rules have table " + r.table() + ", priority " + r.priority() + " and match "
                        + r.match());
            }
            if (r.id() >= nextRuleId) {
                throw new Invalid("rule id " + r.id() + " is not below next_rule_id " + nextRuleId);
            }
        }
        try {
            PortMap.of(ports);
        } catch (IllegalArgumentException e) {
            throw new Invalid("port_map: " + e.getMessage());
        }
        return new SavedState(new ArrayList<>(rules.values()), installed, nextRuleId, new ArrayList<>(groups.values()),
                new ArrayList<>(meters.values()), ports, tags, nextCookie, counters);
    }

    private void nextNumbers(JsonNode root) throws Invalid {
        nextRuleId = integer(root, "next_rule_id", 1, Long.MAX_VALUE);
        nextCookie = integer(root, "next_cookie", 1, Long.MAX_VALUE);
    }

    private void put(VirtualRule rule, JsonNode n) throws Invalid {
        rules.put(rule.id(), rule);
        installed.put(rule.id(), integer(n, "installed_ms", 0, Long.MAX_VALUE));
    }

    private VirtualRule rule(JsonNode n) throws Invalid {
        long id = integer(n, "id", 1, Long.MAX_VALUE);
        OFMessage m = message(text(n, "flow_mod"), "rule " + id);
        if (!(m instanceof OFFlowMod fm)) {
            throw new Invalid("rule " + id + " is a " + m.getType() + ", not a FLOW_MOD");
        }
        try {
            FlowModRequest req = FlowModCodec.decode(fm, tables);
            if (req.command() != FlowModRequest.Command.ADD) {
                throw new Invalid("rule " + id + " is a flow_mod " + req.command() + ", not ADD");
            }
            VirtualRule rule = req.newRule(id, 0);
            RuleValidator.rule(rule);
            return rule;
        } catch (OpenFlowException e) {
            throw new Invalid("rule " + id + " is refused: " + e.describe());
        }
    }

    /**
     * Gives the groups {@code written} in this record the physical ids its {@code group_ids} names (a
     * group not named keeps its own); no two groups' copies may share an id, and none may have one of
     * OneSwitch's own.
     */
    private void physicalGroupIds(JsonNode root, Set<Long> written) throws Invalid {
        JsonNode ids = root.get("group_ids");
        if (ids != null) {
            if (!ids.isObject() || ids.isEmpty()) {
                throw new Invalid("'group_ids' must be a non-empty object, not " + ids);
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = ids.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                long id = key(e.getKey(), "group", "in 'group_ids' ", MAX_U32);
                if (!written.contains(id)) {
                    throw new Invalid("'group_ids' names group " + id + ", which this record does not write");
                }
                long physical = number(e.getValue(), "the physical id of group " + id, 0,
                        Layout.FIRST_RESERVED_GROUP - 1);
                groups.put(id, groups.get(id).withPhysicalId(physical));
            }
        }
        Map<Long, Long> owners = new HashMap<>();
        for (VirtualGroup g : groups.values()) {
            if (g.physicalId() >= Layout.FIRST_RESERVED_GROUP) {
                throw new Invalid("group " + g.id() + " has no physical id below OneSwitch's own groups'");
            }
            Long other = owners.put(g.physicalId(), g.id());
            if (other != null) {
                throw new Invalid("groups " + other + " and " + g.id() + " both have physical id " + g.physicalId());
            }
        }
    }

    private static VirtualGroup group(JsonNode n) throws Invalid {
        OFMessage m = stored(n, "a group");
        if (!(m instanceof OFGroupMod gm)) {
            throw new Invalid("a group is a " + m.getType() + ", not a GROUP_MOD");
        }
        try {
            GroupModRequest req = GroupModCodec.decode(gm);
            if (req.command() != GroupModRequest.Command.ADD) {
                throw new Invalid("group " + req.group().id() + " is a group_mod " + req.command() + ", not ADD");
            }
            RuleValidator.group(req.group());
            return req.group();
        } catch (OpenFlowException e) {
            throw new Invalid("a group is refused: " + e.describe());
        }
    }

    private static VirtualMeter meter(JsonNode n) throws Invalid {
        OFMessage m = stored(n, "a meter");
        if (!(m instanceof OFMeterMod mm) || mm.getCommand() != OFMeterModCommand.ADD) {
            throw new Invalid("a meter is a " + m.getType() + ", not a METER_MOD ADD");
        }
        try {
            return MeterModCodec.decode(mm).meter();
        } catch (OpenFlowException e) {
            throw new Invalid("a meter is refused: " + e.describe());
        }
    }

    /** A list entry that must be an OpenFlow 1.3 message in hex ({@link #message}). */
    private static OFMessage stored(JsonNode n, String what) throws Invalid {
        if (!n.isTextual()) {
            throw new Invalid(what + " must be a hex string, not " + n.getNodeType());
        }
        return message(n.asText(), what);
    }

    /** An OpenFlow 1.3 message in hex, whose length field is its length. */
    private static OFMessage message(String hex, String what) throws Invalid {
        byte[] b;
        try {
            b = HEX.parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new Invalid(what + " is not hex");
        }
        if (b.length < 8 || b[0] != OFVersion.OF_13.getWireVersion() || ((b[2] & 0xff) << 8 | (b[3] & 0xff)) != b.length) {
            throw new Invalid(what + " is not an OpenFlow 1.3 message of " + b.length + " bytes");
        }
        ByteBuf buf = Unpooled.wrappedBuffer(b);
        try {
            OFMessage m = OFFactories.getGenericReader().readFrom(buf);
            if (m == null || buf.isReadable()) {
                throw new Invalid(what + " does not decode to its own length");
            }
            return m;
        } catch (Invalid e) {
            throw e;
        } catch (Exception e) {
            throw new Invalid(what + " does not decode: " + e.getMessage());
        }
    }

    private static List<PortMapping> portMap(JsonNode root) throws Invalid {
        List<PortMapping> out = new ArrayList<>();
        for (JsonNode m : array(root, "port_map")) {
            fields(m, "a port mapping", PORT, Set.of());
            try {
                out.add(new PortMapping(mappedPort(m, "virtual_port"),
                        new PhysicalPort(text(m, "switch"), mappedPort(m, "ofport")), text(m, "port"), text(m, "name")));
            } catch (IllegalArgumentException e) {
                throw new Invalid("port_map: " + e.getMessage());
            }
        }
        return out;
    }

    /**
     * A port number of a mapping: 1 to {@link PortNumbers#MAX}, as the REST API maps them, or LOCAL (the
     * host's LOCAL port, mapped from the start). A larger number could not be homed (oneswitch/DESIGN.md,
     * "Meters") nor be a bridge's port.
     */
    private static OFPort mappedPort(JsonNode m, String key) throws Invalid {
        JsonNode v = m.get(key);
        if (v != null && v.isIntegralNumber() && v.asLong() == Integer.toUnsignedLong(OFPort.LOCAL.getPortNumber())) {
            return OFPort.LOCAL;
        }
        if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 1 || v.asLong() > PortNumbers.MAX) {
            throw new Invalid("'" + key + "' must be a port number from 1 to " + PortNumbers.MAX + " or LOCAL ("
                    + Integer.toUnsignedLong(OFPort.LOCAL.getPortNumber()) + "), not " + v);
        }
        return OFPort.of((int) v.asLong());
    }

    private static Map<Integer, List<Integer>> tags(JsonNode root) throws Invalid {
        JsonNode t = root.get("tags");
        if (!t.isObject()) {
            throw new Invalid("tags must be an object, not " + t.getNodeType());
        }
        Map<Integer, List<Integer>> out = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = t.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            int tag = (int) key(e.getKey(), "tag", "", Integer.MAX_VALUE);
            if (!e.getValue().isArray() || e.getValue().isEmpty()) {
                throw new Invalid("tag " + tag + " must list its virtual ports");
            }
            List<Integer> members = new ArrayList<>();
            for (JsonNode p : e.getValue()) {
                members.add((int) number(p, "a port of tag " + tag, 1, MAX_U32));
            }
            out.put(tag, members);
        }
        return out;
    }

    private static RuleCounters ruleCounters(JsonNode n) throws Invalid {
        fields(n, "counters", Set.of("carried", "switches"), Set.of());
        JsonNode s = n.get("switches");
        if (!s.isObject()) {
            throw new Invalid("counters.switches must be an object, not " + s.getNodeType());
        }
        Map<String, Counts> bySwitch = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            bySwitch.put(e.getKey(), counts(e.getValue()));
        }
        return new RuleCounters(counts(n.get("carried")), bySwitch);
    }

    private static Counts counts(JsonNode n) throws Invalid {
        if (!n.isArray() || n.size() != 2) {
            throw new Invalid("counters must be [packets, bytes], not " + n);
        }
        return new Counts(number(n.get(0), "packets", 0, Long.MAX_VALUE), number(n.get(1), "bytes", 0, Long.MAX_VALUE));
    }

    /** Checks that {@code n} is an object with every field of {@code required}, and no other than {@code optional}. */
    private static void fields(JsonNode n, String what, Set<String> required, Set<String> optional) throws Invalid {
        if (!n.isObject()) {
            throw new Invalid(what + " must be an object, not " + n.getNodeType());
        }
        for (String k : required) {
            if (!n.has(k)) {
                throw new Invalid(what + " has no '" + k + "'");
            }
        }
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!required.contains(k) && !optional.contains(k)) {
                throw new Invalid(what + " has an unknown field '" + k + "'");
            }
        }
    }

    private static void kind(JsonNode root, String expected) throws Invalid {
        if (!expected.equals(root.get("kind").asText())) {
            throw new Invalid("kind must be " + expected + ", not " + root.get("kind"));
        }
    }

    private static JsonNode array(JsonNode n, String key) throws Invalid {
        JsonNode a = n.get(key);
        if (!a.isArray()) {
            throw new Invalid("'" + key + "' must be a list, not " + a.getNodeType().toString().toLowerCase());
        }
        return a;
    }

    /** A list a record may leave out when it is empty (meters, which older files never have). */
    private static JsonNode optionalArray(JsonNode n, String key) throws Invalid {
        return n.has(key) ? array(n, key) : JSON.createArrayNode();
    }

    /** An object's key that is a number from 0 to {@code max} ({@code what} and {@code where} name it in the reason). */
    private static long key(String key, String what, String where, long max) throws Invalid {
        try {
            long n = Long.parseLong(key);
            if (n >= 0 && n <= max) {
                return n;
            }
        } catch (NumberFormatException x) {
            // reported below
        }
        throw new Invalid(what + " '" + key + "' " + where + "is not a number from 0 to " + max);
    }

    private static long integer(JsonNode n, String key, long min, long max) throws Invalid {
        return number(n.get(key), "'" + key + "'", min, max);
    }

    private static long number(JsonNode v, String what, long min, long max) throws Invalid {
        if (v == null || !v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < min || v.asLong() > max) {
            throw new Invalid(what + " must be an integer from " + min + " to " + max + ", not " + v);
        }
        return v.asLong();
    }

    private static long id(JsonNode v, String what) throws Invalid {
        return number(v, "an id in '" + what + "'", 1, Long.MAX_VALUE);
    }

    private static String text(JsonNode n, String key) throws Invalid {
        JsonNode v = n.get(key);
        if (!v.isTextual() || v.asText().isEmpty()) {
            throw new Invalid("'" + key + "' must be a non-empty string, not " + v);
        }
        return v.asText();
    }
}
