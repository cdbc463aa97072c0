package org.uno.oneswitch.rest;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntSupplier;
import java.util.function.Predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.projectfloodlight.openflow.protocol.OFPortState;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.core.LoopWatch;
import org.uno.oneswitch.core.PortRequest;
import org.uno.oneswitch.core.RemapService;
import org.uno.oneswitch.core.StateLog;
import org.uno.oneswitch.core.Timers;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.error.PortMapException;
import org.uno.oneswitch.error.TranslationConflictException;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.PortNumbers;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.VirtualRule;
import org.uno.oneswitch.stats.PortDescription;

/**
 * The REST resources (documented in oneswitch/README.md):
 * <pre>
 *   GET    /v1/health            status, switches, controllers, rule counts
 *   GET    /v1/ports             all port mappings
 *   POST   /v1/ports             add a mapping {"switch", "port" | "ofport", ["virtual_port"], ["name"]}
 *   GET    /v1/ports/{n}         one mapping
 *   PUT    /v1/ports/{n}         remap {"switch", "port" | "ofport"}: make-before-break, no PORT_STATUS
 *   DELETE /v1/ports/{n}         remove a mapping
 *   POST   /v1/drains            {"from", ["timeout_ms"]}: answers once what the switch sent over its links
 *                                has been forwarded by the others ({"drained": false} past the timeout)
 *   GET    /v1/explain           every virtual rule and group and what it became, with counters
 *            ?rule=ID | ?cookie=C | ?physical_cookie=C
 * </pre>
 * Runs on the event loop (see {@link RestServer}); answers complete when their work is done. A
 * port named in POST or PUT that a connected switch has not reported yet is waited for, up to
 * {@value #PORT_WAIT_MS} ms: a port just added to the bridge reaches OneSwitch as a PORT_STATUS a
 * moment later, and the client that added it must not be refused for that. With a state file, an
 * answer to a change is sent once the change is on disk; a change that cannot be written is refused
 * (or undone) with 503.
 */
public final class RestApi {
    /** A status and a JSON body (null for none). */
    public record Response(int status, JsonNode body) {
    }

    private static final Set<String> PORT_KEYS = Set.of("switch", "port", "ofport", "virtual_port", "name");
    private static final Set<String> REMAP_KEYS = Set.of("switch", "port", "ofport");
    private static final Set<String> DRAIN_KEYS = Set.of("from", "timeout_ms");
    private static final long DRAIN_DEFAULT_MS = 200;
    private static final long DRAIN_MAX_MS = 10_000;
    static final long PORT_WAIT_MS = 2000;
    private static final long PORT_POLL_MS = 10;
    private static final long MAX_PORT = PortNumbers.MAX;
    /** The API's description (OpenAPI 3), from the jar. */
    private static final JsonNode OPENAPI = OpenApi.load();

    private final VirtualSwitch vs;
    private final Predicate<String> switchConnected;
    private final IntSupplier controllers;
    private final Timers timers;
    private final LoopWatch loopWatch;

    public RestApi(VirtualSwitch vs, Predicate<String> switchConnected, IntSupplier controllers, Timers timers,
                   LoopWatch loopWatch) {
        this.vs = vs;
        this.switchConnected = switchConnected;
        this.controllers = controllers;
        this.timers = timers;
        this.loopWatch = loopWatch;
    }

    public CompletableFuture<Response> handle(String method, String path, Map<String, String> query, JsonNode body)
            throws HttpError {
        String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        if (p.equals("/v1/openapi.json")) {
            requireMethod(method, "GET");
            return done(200, OPENAPI);
        }
        if (p.equals("/v1/health")) {
            requireMethod(method, "GET");
            return done(200, health());
        }
        if (p.equals("/v1/explain")) {
            requireMethod(method, "GET");
            return explain(query);
        }
        if (p.equals("/v1/ports")) {
            if (method.equals("GET")) {
                ArrayNode list = RestServer.JSON.createArrayNode();
                vs.ports().current().mappings().forEach(m -> list.add(mapping(m)));
                return done(200, RestServer.JSON.createObjectNode().set("ports", list));
            }
            requireMethod(method, "POST");
            PortRequest req = portRequest(body, PORT_KEYS);
            return durably(() -> whenPortSeen(req, () -> done(201, mapping(vs.ports().add(req))),
                    "the installed rules cannot be translated with this port: ", PORT_WAIT_MS / PORT_POLL_MS));
        }
        if (p.equals("/v1/drains")) {
            requireMethod(method, "POST");
            return drain(body);
        }
        if (p.startsWith("/v1/ports/")) {
            OFPort v = virtualPort(p.substring("/v1/ports/".length()));
            switch (method) {
                case "GET":
                    return done(200, mapping(vs.ports().current().get(v).orElseThrow(() ->
                            new HttpError(404, "virtual port " + v + " is not mapped"))));
                case "PUT":
                    return durably(() -> remap(v, body));
                case "DELETE":
                    return durably(() -> {
                        try {
                            vs.ports().remove(v);
                        } catch (PortMapException e) {
                            throw toHttp(e);
                        }
                        return done(204, null);
                    });
                default:
                    throw new HttpError(405, "method " + method + " not allowed here");
            }
        }
        throw new HttpError(404, "no resource " + path + " (see /v1/health, /v1/ports, /v1/drains, /v1/explain)");
    }

    /** A request that changes the persistent state. */
    private interface Change {
        CompletableFuture<Response> apply() throws HttpError;
    }

    /**
     * Runs {@code change} unless the state file cannot take changes now (503), and answers once what
     * it changed is on disk, or 503 if it was undone because it could not be written.
     */
    private CompletableFuture<Response> durably(Change change) throws HttpError {
        vs.state().requireWritable(reason -> new HttpError(503, reason));
        // Through the virtual switch's one entry for plan changes: after a remap being applied, never inside it.
        return vs.gate().enter(() -> {
            vs.state().requireWritable(reason -> new HttpError(503, reason));
            return change.apply();
        }).thenCompose(r -> vs.state().durable().handle((v, t) -> {
            if (t != null) {
                throw new CompletionException(new HttpError(503, "the change was undone: " + t.getMessage()));
            }
            return r;
        }));
    }

    private static CompletableFuture<Response> done(int status, JsonNode body) {
        return CompletableFuture.completedFuture(new Response(status, body));
    }

    private CompletableFuture<Response> remap(OFPort v, JsonNode body) throws HttpError {
        PortRequest req = portRequest(body, REMAP_KEYS);
        return whenPortSeen(req, () -> vs.remaps().remap(v, req).thenApply(r -> new Response(200, remapped(r))),
                "the installed rules cannot be translated with the port there: ", PORT_WAIT_MS / PORT_POLL_MS);
    }

    /** A change naming a physical port; it may find the port not reported yet. */
    private interface PortChange {
        CompletableFuture<Response> apply() throws PortMapException, TranslationConflictException;
    }

    /** Runs {@code change}, again every {@value #PORT_POLL_MS} ms while its port is not seen yet on a
     * connected switch, at most {@code tries} more times. */
    private CompletableFuture<Response> whenPortSeen(PortRequest req, PortChange change, String conflict, long tries)
            throws HttpError {
        try {
            return change.apply();
        } catch (PortMapException e) {
            if (e.reason() != PortMapException.Reason.PORT_NOT_SEEN || tries == 0
                    || !switchConnected.test(req.switchId())) {
                throw toHttp(e);
            }
        } catch (TranslationConflictException e) {
            throw new HttpError(409, conflict + e.getMessage());
        }
        CompletableFuture<Response> later = new CompletableFuture<>();
        timers.schedule(PORT_POLL_MS, () -> vs.gate().enter(() -> whenPortSeen(req, change, conflict, tries - 1))
                .whenComplete((r, t) -> {
                    if (t != null) {
                        later.completeExceptionally(t);
                    } else {
                        later.complete(r);
                    }
                }));
        return later;
    }

    private CompletableFuture<Response> drain(JsonNode body) throws HttpError {
        requireKeys(body, DRAIN_KEYS, "{\"from\": \"host\"}");
        String from = text(body, "from");
        if (from == null) {
            throw new HttpError(400, "'from' (a switch id) is required");
        }
        if (vs.topology().switches().stream().noneMatch(s -> s.id().equals(from))) {
            throw new HttpError(404, "no switch '" + from + "'");
        }
        JsonNode t = body.get("timeout_ms");
        long timeout = DRAIN_DEFAULT_MS;
        if (t != null && !t.isNull()) {
            if (!t.isIntegralNumber() || !t.canConvertToLong() || t.asLong() < 1 || t.asLong() > DRAIN_MAX_MS) {
                throw new HttpError(400, "'timeout_ms' must be a number of milliseconds from 1 to " + DRAIN_MAX_MS);
            }
            timeout = t.asLong();
        }
        long start = System.nanoTime();
        return vs.remaps().drainFrom(from, timeout).thenApply(drained -> new Response(200,
                RestServer.JSON.createObjectNode().put("from", from).put("drained", drained)
                        .put("elapsed_ms", (System.nanoTime() - start) / 1e6)));
    }

    private ObjectNode remapped(RemapService.Report r) {
        ObjectNode out = mapping(r.to());
        ObjectNode remap = out.putObject("remap");
        remap.put("changed", r.changed());
        remap.set("from", RestServer.JSON.createObjectNode().put("switch", r.from().physical().switchId())
                .put("port", r.from().physicalName()).put("ofport", ofport(r.from())));
        remap.put("elapsed_ms", r.micros() / 1000.0);
        ArrayNode stages = remap.putArray("stages");
        for (RemapService.Stage s : r.stages()) {
            stages.addObject().put("stage", s.name()).put("changes", s.changes()).put("elapsed_ms", s.micros() / 1000.0);
        }
        remap.put("drained", r.drained());
        remap.put("old_entries_kept_ms", r.retireMillis());
        return out;
    }

    private CompletableFuture<Response> explain(Map<String, String> q) throws HttpError {
        for (String k : q.keySet()) {
            if (!List.of("rule", "cookie", "physical_cookie").contains(k)) {
                throw new HttpError(400, "unknown parameter '" + k + "' (rule, cookie, physical_cookie)");
            }
        }
        if (q.containsKey("physical_cookie")) {
            U64 cookie = U64.of(Query.number(q, "physical_cookie"));
            return vs.explain().entry(cookie).thenApply(e -> e.map(x -> new Response(200, ExplainJson.entry(x, vs)))
                    .orElse(new Response(404, RestServer.error("no physical entry has cookie " + cookie))));
        }
        List<VirtualRule> rules;
        if (q.containsKey("rule")) {
            long id = Query.number(q, "rule");
            rules = vs.flows().rule(id).map(List::of).orElseThrow(() -> new HttpError(404, "no virtual rule #" + id));
        } else if (q.containsKey("cookie")) {
            long cookie = Query.number(q, "cookie");
            rules = vs.flows().all().stream().filter(r -> r.cookie().getValue() == cookie).toList();
        } else {
            rules = List.copyOf(vs.flows().all());
        }
        boolean withGroups = q.isEmpty();
        return vs.explain().rules(rules).thenApply(views -> new Response(200, ExplainJson.rules(views,
                withGroups ? vs.explain().groups() : List.of())));
    }

    private static PortRequest portRequest(JsonNode body, Set<String> allowed) throws HttpError {
        requireKeys(body, allowed, "{\"switch\": \"host\", \"port\": \"uno-vm0\"}");
        return new PortRequest(text(body, "switch"), text(body, "port"), portNumber(body, "ofport"),
                portNumber(body, "virtual_port"), text(body, "name"));
    }

    /** {@code body} is a JSON object (like {@code example}) with no key but the {@code allowed} ones. */
    private static void requireKeys(JsonNode body, Set<String> allowed, String example) throws HttpError {
        if (body == null || !body.isObject()) {
            throw new HttpError(400, "body must be a JSON object like " + example);
        }
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!allowed.contains(k)) {
                throw new HttpError(400, "unknown key '" + k + "' (allowed: " + allowed + ")");
            }
        }
    }

    private ObjectNode health() {
        ObjectNode h = RestServer.JSON.createObjectNode();
        boolean all = vs.topology().switches().stream().allMatch(s -> switchConnected.test(s.id()));
        StateLog.Status state = vs.state().status();
        h.put("status", state.degraded().isPresent() ? "degraded" : all ? "ok" : "waiting for switches");
        h.put("datapath_id", vs.datapathId().toString());
        ArrayNode switches = h.putArray("switches");
        for (SwitchSpec s : vs.topology().switches()) {
            switches.addObject().put("id", s.id()).put("role", s.role().name().toLowerCase())
                    .put("datapath_id", s.datapathId().toString()).put("connected", switchConnected.test(s.id()));
        }
        h.put("controllers", controllers.getAsInt());
        h.put("virtual_ports", vs.ports().current().size());
        h.put("virtual_rules", vs.virtualRuleCount());
        h.put("virtual_groups", vs.groups().all().size());
        h.put("physical_entries", vs.physicalEntryCount());
        h.put("physical_groups", vs.planner().plan().groupCount());
        h.put("flow_id_tags", vs.planner().plan().tags().size());
        h.put("dropped_packet_ins", vs.packets().droppedPacketIns());
        ObjectNode links = h.putObject("link_checks");
        vs.linkChecks().forEach((id, r) -> {
            ObjectNode c = links.putObject(id).put("ok", r.ok()).put("elapsed_ms", r.elapsedMillis())
                    .put("at_ms", r.atMillis());
            c.set("with", RestServer.JSON.valueToTree(r.others()));
        });
        h.put("flow_mods", vs.flows().flowModWork().count());
        h.put("flow_mod_ms", vs.flows().flowModWork().nanos() / 1e6);
        ObjectNode loop = h.putObject("event_loop").put("tick_ms", LoopWatch.TICK_MS)
                .put("max_late_ms", loopWatch.maxLateMillis());
        loop.set("late_ms_bounds", RestServer.JSON.valueToTree(LoopWatch.boundsMillis()));
        loop.set("late_ticks", RestServer.JSON.valueToTree(loopWatch.counts()));
        if (state.enabled()) {
            h.putObject("state_file").put("status", state.degraded().isPresent() ? "degraded" : "ok")
                    .put("error", state.degraded().orElse(null)).put("records_written", state.commits())
                    .put("write_failures", state.writeFailures()).put("snapshots", state.snapshots())
                    .put("refused_requests", state.refusedRequests()).put("undone_requests", state.undoneRequests());
        }
        return h;
    }

    private ObjectNode mapping(PortMapping m) {
        PortDescription d = vs.ports().describe(m);
        return RestServer.JSON.createObjectNode().put("virtual_port", Integer.toUnsignedLong(m.virtualPort().getPortNumber()))
                .put("switch", m.physical().switchId()).put("port", m.physicalName())
                .put("ofport", ofport(m)).put("name", m.name())
                .put("link_up", !d.state().contains(OFPortState.LINK_DOWN));
    }

    private static long ofport(PortMapping m) {
        return Integer.toUnsignedLong(m.physical().port().getPortNumber());
    }

    private static OFPort virtualPort(String s) throws HttpError {
        try {
            long n = Long.parseLong(s);
            if (n > 0 && n <= MAX_PORT) {
                return OFPort.of((int) n);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new HttpError(400, "'" + s + "' is not a virtual port number");
    }

    private static String text(JsonNode body, String key) throws HttpError {
        JsonNode v = body.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new HttpError(400, "'" + key + "' must be a string");
        }
        return v.asText();
    }

    /** A port number: 1 to {@link PortNumbers#MAX}; the reserved ports (LOCAL, IN_PORT...) are not ports to map. */
    private static Long portNumber(JsonNode body, String key) throws HttpError {
        JsonNode v = body.get(key);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 1 || v.asLong() > MAX_PORT) {
            throw new HttpError(400, "'" + key + "' must be a port number from 1 to " + MAX_PORT + ", not " + v);
        }
        return v.asLong();
    }

    private static void requireMethod(String method, String allowed) throws HttpError {
        if (!method.equals(allowed)) {
            throw new HttpError(405, "method " + method + " not allowed here");
        }
    }

    private static HttpError toHttp(PortMapException e) {
        int status = switch (e.reason()) {
            case BAD_REQUEST -> 400;
            case NOT_FOUND, PORT_NOT_SEEN -> 404;
            case CONFLICT -> 409;
        };
        return new HttpError(status, e.getMessage());
    }
}
