package org.uno.oneswitch.app;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMeterModCommand;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.uno.oneswitch.codec.InstructionCodec;
import org.uno.oneswitch.codec.MatchCodec;
import org.uno.oneswitch.codec.MeterModCodec;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.core.ChangeBatch;
import org.uno.oneswitch.core.RuleCounters;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.Counts;

/**
 * The state file (schema {@code oneswitch-state/2}, see oneswitch/README.md): {@link StateRecords}
 * framing, a snapshot record (port map, flow-id tags, every virtual group, meter and rule as the OpenFlow
 * 1.3 message that adds it, in hex, with the rules' counters) followed by change records, one per
 * commit. Loading checks every record and every part of it ({@link StateReplay}) and goes through
 * the same decoding and validation as a controller's request. Encoding runs on the writer's threads.
 */
public final class StateFile {
    static final String SCHEMA = "oneswitch-state/2";
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    private static final JsonFactory JSON = new JsonFactory();
    private static final HexFormat HEX = HexFormat.of();

    /**
     * A loaded state file.
     *
     * @param state    what it holds
     * @param records  how many records it had
     * @param tornTail the torn last record dropped, if there was one
     */
    public record Loaded(SavedState state, int records, Optional<String> tornTail) {
    }

    private StateFile() {
    }

    /** The state saved in {@code file}, or empty when there is none; throws with the reason on a damaged file. */
    public static Optional<Loaded> load(Path file, int tables) throws ConfigException {
        byte[] data;
        try {
            data = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new ConfigException("cannot read state file " + file + ": " + e.getMessage().lines().findFirst()
                    .orElse(""));
        }
        try {
            StateRecords.Parsed parsed = StateRecords.parse(data);
            SavedState state = StateReplay.replay(parsed.records(), tables);
            return Optional.of(new Loaded(state, parsed.records().size(), parsed.tornTail()));
        } catch (StateRecords.DamagedException e) {
            throw new ConfigException("state file " + file + " is damaged: " + e.getMessage());
        }
    }

    /** The body of a snapshot record of {@code s}, which contains every record up to {@code seq}. */
    static byte[] snapshot(long seq, SavedState s) {
        return json(g -> {
            g.writeStringField("schema", SCHEMA);
            g.writeStringField("kind", "snapshot");
            g.writeNumberField("seq", seq);
            g.writeNumberField("next_rule_id", s.nextRuleId());
            g.writeNumberField("next_cookie", s.nextCookie());
            writePorts(g, s.ports());
            writeTags(g, s.tags());
            writeGroups(g, "groups", s.groups());
            writeMeters(g, s.meters());
            g.writeArrayFieldStart("rules");
            ByteBuf buf = Unpooled.buffer();
            for (VirtualRule r : s.rules()) {
                writeRule(g, r, s.installedMillis().getOrDefault(r.id(), 0L), buf);
                RuleCounters c = s.counters().get(r.id());
                if (c != null && !c.isZero()) {
                    g.writeObjectFieldStart("counters");
                    writeCounts(g, "carried", c.carried());
                    g.writeObjectFieldStart("switches");
                    for (Map.Entry<String, Counts> e : c.bySwitch().entrySet()) {
                        writeCounts(g, e.getKey(), e.getValue());
                    }
                    g.writeEndObject();
                    g.writeEndObject();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
        });
    }

    /** The body of the change record {@code b}. */
    static byte[] changes(ChangeBatch b) {
        return json(g -> {
            g.writeStringField("kind", "changes");
            g.writeNumberField("seq", b.seq());
            g.writeNumberField("next_rule_id", b.nextRuleId());
            g.writeNumberField("next_cookie", b.nextCookie());
            g.writeArrayFieldStart("rules");
            ByteBuf buf = Unpooled.buffer();
            for (VirtualRule r : b.rules()) {
                writeRule(g, r, b.installedMillis(r), buf);
                g.writeEndObject();
            }
            g.writeEndArray();
            writeIds(g, "deleted_rules", b.removedRules());
            writeGroups(g, "groups", b.groups());
            writeIds(g, "deleted_groups", b.removedGroups());
            writeMeters(g, b.meters());
            if (!b.removedMeters().isEmpty()) {
                writeIds(g, "deleted_meters", b.removedMeters());
            }
            if (b.portMap().isPresent()) {
                writePorts(g, List.copyOf(b.portMap().get().mappings()));
            }
            if (b.tags().isPresent()) {
                writeTags(g, b.tags().get());
            }
        });
    }

    private interface Fields {
        void write(JsonGenerator g) throws IOException;
    }

    private static byte[] json(Fields fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            fields.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode the state", e);
        }
        return out.toByteArray();
    }

    /** Writes a rule object without closing it (the caller may add fields). */
    private static void writeRule(JsonGenerator g, VirtualRule r, long installedMillis, ByteBuf buf) throws IOException {
        g.writeStartObject();
        g.writeNumberField("id", r.id());
        g.writeNumberField("installed_ms", installedMillis);
        g.writeStringField("flow_mod", hex(OF13.buildFlowAdd().setTableId(TableId.of(r.table())).setPriority(r.priority())
                .setMatch(MatchCodec.encode(r.match(), OF13)).setInstructions(InstructionCodec.encode(r.instructions(), OF13))
                .setCookie(r.cookie()).setFlags(r.flags()).setIdleTimeout(r.idleTimeout())
                .setHardTimeout(r.hardTimeout()).setBufferId(OFBufferId.NO_BUFFER).setOutPort(OFPort.ANY)
                .setOutGroup(OFGroup.ANY).build(), buf));
    }

    /**
     * The groups as the group_mods that add them, and {@code group_ids} (group id: physical id) for
     * those whose copies have another id, left out when there are none (files before it have none).
     */
    private static void writeGroups(JsonGenerator g, String field, List<VirtualGroup> groups) throws IOException {
        g.writeArrayFieldStart(field);
        ByteBuf buf = Unpooled.buffer();
        for (VirtualGroup v : groups) {
            g.writeString(hex(OF13.buildGroupAdd().setGroup(OFGroup.of((int) v.id())).setGroupType(v.type())
                    .setBuckets(PhysicalMessages.buckets(v.buckets(), OF13)).build(), buf));
        }
        g.writeEndArray();
        if (groups.stream().anyMatch(v -> v.physicalId() != v.id())) {
            g.writeObjectFieldStart("group_ids");
            for (VirtualGroup v : groups) {
                if (v.physicalId() != v.id()) {
                    g.writeNumberField(String.valueOf(v.id()), v.physicalId());
                }
            }
            g.writeEndObject();
        }
    }

    /** The meters as the meter_mods that add them; left out when there are none (files before meters have none). */
    private static void writeMeters(JsonGenerator g, List<VirtualMeter> meters) throws IOException {
        if (meters.isEmpty()) {
            return;
        }
        g.writeArrayFieldStart("meters");
        ByteBuf buf = Unpooled.buffer();
        for (VirtualMeter m : meters) {
            g.writeString(hex(MeterModCodec.message(OF13, OFMeterModCommand.ADD, m).build(), buf));
        }
        g.writeEndArray();
    }

    private static void writePorts(JsonGenerator g, List<PortMapping> ports) throws IOException {
        g.writeArrayFieldStart("port_map");
        for (PortMapping m : ports) {
            g.writeStartObject();
            g.writeNumberField("virtual_port", Integer.toUnsignedLong(m.virtualPort().getPortNumber()));
            g.writeStringField("switch", m.physical().switchId());
            g.writeNumberField("ofport", Integer.toUnsignedLong(m.physical().port().getPortNumber()));
            g.writeStringField("port", m.physicalName());
            g.writeStringField("name", m.name());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void writeTags(JsonGenerator g, Map<Integer, List<Integer>> tags) throws IOException {
        g.writeObjectFieldStart("tags");
        for (Map.Entry<Integer, List<Integer>> e : tags.entrySet()) {
            g.writeArrayFieldStart(String.valueOf(e.getKey()));
            for (int p : e.getValue()) {
                g.writeNumber(Integer.toUnsignedLong(p));
            }
            g.writeEndArray();
        }
        g.writeEndObject();
    }

    private static void writeIds(JsonGenerator g, String field, List<Long> ids) throws IOException {
        g.writeArrayFieldStart(field);
        for (long id : ids) {
            g.writeNumber(id);
        }
        g.writeEndArray();
    }

    private static void writeCounts(JsonGenerator g, String field, Counts c) throws IOException {
        g.writeArrayFieldStart(field);
        g.writeNumber(c.packets());
        g.writeNumber(c.bytes());
        g.writeEndArray();
    }

    private static String hex(OFMessage m, ByteBuf buf) {
        buf.clear();
        m.writeTo(buf);
        return HEX.formatHex(buf.array(), buf.arrayOffset() + buf.readerIndex(), buf.arrayOffset() + buf.writerIndex());
    }
}
