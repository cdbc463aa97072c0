package org.uno.oneswitch.app;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import org.projectfloodlight.openflow.protocol.OFFactories;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.TableId;
import org.uno.oneswitch.codec.FlowModCodec;
import org.uno.oneswitch.codec.GroupModCodec;
import org.uno.oneswitch.codec.InstructionCodec;
import org.uno.oneswitch.codec.MatchCodec;
import org.uno.oneswitch.codec.PhysicalMessages;
import org.uno.oneswitch.core.SavedState;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;

/**
 * The state file (schema {@code oneswitch-state/1}, see oneswitch/README.md): JSON with the port map,
 * the flow-id tags, and every virtual group and rule as the OpenFlow 1.3 message that adds it (hex),
 * so that loading goes through the same decoding and validation as a controller's request. Written
 * atomically: a temporary file in the same directory, flushed to disk, then renamed over the old one.
 */
public final class StateFile {
    static final String SCHEMA = "oneswitch-state/1";
    private static final OFFactory OF13 = OFFactories.getFactory(OFVersion.OF_13);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private StateFile() {
    }

    /** Writes {@code state} to {@code file}, replacing it atomically. */
    public static void write(Path file, SavedState state) throws IOException {
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(toJson(state));
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes));
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** The state saved in {@code file}, or empty when there is none; throws on a file that cannot be used. */
    public static Optional<SavedState> load(Path file, int tables) throws ConfigException {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new ConfigException("cannot read state file " + file + ": " + e.getMessage().lines().findFirst()
                    .orElse(""));
        }
        try {
            return Optional.of(fromJson(root, tables));
        } catch (OpenFlowException | RuntimeException e) {
            throw new ConfigException("state file " + file + " is not usable: " + (e instanceof OpenFlowException o
                    ? o.describe() : e.toString()));
        }
    }

    static ObjectNode toJson(SavedState s) {
        ObjectNode root = JSON.createObjectNode().put("schema", SCHEMA).put("next_rule_id", s.nextRuleId())
                .put("next_cookie", s.nextCookie());
        ArrayNode ports = root.putArray("port_map");
        for (PortMapping m : s.ports()) {
            ports.addObject().put("virtual_port", Integer.toUnsignedLong(m.virtualPort().getPortNumber()))
                    .put("switch", m.physical().switchId())
                    .put("ofport", Integer.toUnsignedLong(m.physical().port().getPortNumber()))
                    .put("port", m.physicalName()).put("name", m.name());
        }
        ObjectNode tags = root.putObject("tags");
        s.tags().forEach((tag, members) -> {
            ArrayNode a = tags.putArray(String.valueOf(tag));
            members.forEach(p -> a.add(Integer.toUnsignedLong(p)));
        });
        ArrayNode groups = root.putArray("groups");
        for (VirtualGroup g : s.groups()) {
            groups.add(hex(OF13.buildGroupAdd().setGroup(OFGroup.of((int) g.id())).setGroupType(g.type())
                    .setBuckets(PhysicalMessages.buckets(g.buckets(), OF13)).build()));
        }
        ArrayNode rules = root.putArray("rules");
        for (VirtualRule r : s.rules()) {
            rules.addObject().put("id", r.id()).put("age_ms", s.ageMillis().getOrDefault(r.id(), 0L))
                    .put("flow_mod", hex(OF13.buildFlowAdd().setTableId(TableId.of(r.table())).setPriority(r.priority())
                            .setMatch(MatchCodec.encode(r.match(), OF13))
                            .setInstructions(InstructionCodec.encode(r.instructions(), OF13)).setCookie(r.cookie())
                            .setFlags(r.flags()).setIdleTimeout(r.idleTimeout()).setHardTimeout(r.hardTimeout())
                            .setBufferId(OFBufferId.NO_BUFFER).setOutPort(OFPort.ANY).setOutGroup(OFGroup.ANY).build()));
        }
        return root;
    }

    static SavedState fromJson(JsonNode root, int tables) throws OpenFlowException {
        if (!SCHEMA.equals(root.path("schema").asText())) {
            throw new IllegalArgumentException("schema must be " + SCHEMA);
        }
        List<PortMapping> ports = new ArrayList<>();
        for (JsonNode m : root.path("port_map")) {
            ports.add(new PortMapping(OFPort.of((int) m.path("virtual_port").asLong()), new PhysicalPort(
                    m.path("switch").asText(), OFPort.of((int) m.path("ofport").asLong())), m.path("port").asText(),
                    m.path("name").asText()));
        }
        Map<Integer, List<Integer>> tags = new HashMap<>();
        root.path("tags").fields().forEachRemaining(e -> {
            List<Integer> members = new ArrayList<>();
            e.getValue().forEach(p -> members.add((int) p.asLong()));
            tags.put(Integer.parseInt(e.getKey()), members);
        });
        List<VirtualGroup> groups = new ArrayList<>();
        for (JsonNode g : root.path("groups")) {
            groups.add(GroupModCodec.decode((OFGroupMod) message(g.asText())).group());
        }
        List<VirtualRule> rules = new ArrayList<>();
        Map<Long, Long> ages = new HashMap<>();
        for (JsonNode r : root.path("rules")) {
            long id = r.path("id").asLong();
            rules.add(FlowModCodec.decode((OFFlowMod) message(r.path("flow_mod").asText()), tables).newRule(id, 0));
            ages.put(id, r.path("age_ms").asLong());
        }
        return new SavedState(rules, ages, root.path("next_rule_id").asLong(1), groups, ports, tags,
                root.path("next_cookie").asLong(1));
    }

    private static String hex(OFMessage m) {
        ByteBuf buf = Unpooled.buffer();
        m.writeTo(buf);
        byte[] b = new byte[buf.readableBytes()];
        buf.readBytes(b);
        return HEX.formatHex(b);
    }

    private static OFMessage message(String hex) {
        try {
            return OFFactories.getGenericReader().readFrom(Unpooled.wrappedBuffer(HEX.parseHex(hex)));
        } catch (Exception e) {
            throw new IllegalArgumentException("undecodable message " + hex, e);
        }
    }
}
