package org.uno.oneswitch.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFPortReason;
import org.projectfloodlight.openflow.protocol.OFPortStatus;
import org.uno.oneswitch.core.LoopWatch;
import org.uno.oneswitch.testing.StateFixture;

/** With a state file, a REST change is answered once it is on disk, and 503 when it cannot be written. */
class RestApiDurabilityTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StateFixture f = new StateFixture(false);
    private final StateFixture.Sink sink = new StateFixture.Sink();
    private final RestApi api = new RestApi(f.vs, s -> true, () -> 0,
            (ms, task) -> f.timers.add(new StateFixture.Timer(ms, task)), new LoopWatch(System::nanoTime, (ms, t) -> { }));

    RestApiDurabilityTest() throws Exception {
        f.vs.state().start(sink);
        f.runTimers(0);
        sink.snapshotsWritten();
    }

    private CompletableFuture<RestApi.Response> post(String port) throws Exception {
        return api.handle("POST", "/v1/ports", null, JSON.readTree("{\"switch\": \"host\", \"port\": \"" + port + "\"}"));
    }

    @Test
    void aChangeIsAnsweredOnceItIsOnDisk() throws Exception {
        CompletableFuture<RestApi.Response> answer = post("vm0");
        f.runTimers(0);
        assertTrue(sink.appended.get(0).portMap().isPresent(), "the new port map is in the next record");
        assertFalse(answer.isDone(), "not before it is on disk");
        sink.commit();
        assertEquals(201, answer.join().status());
        assertTrue(api.handle("GET", "/v1/ports", null, null).isDone(), "reading waits for nothing");
    }

    @Test
    void aChangeThatCannotBeWrittenIsUndoneAndAnswered503() throws Exception {
        CompletableFuture<RestApi.Response> first = post("vm0");
        f.runTimers(0);
        sink.commit();
        assertEquals(201, first.join().status());
        f.toController.clear();

        CompletableFuture<RestApi.Response> second = post("vm1");
        f.runTimers(0);
        sink.fail("No space left on device");
        CompletionException e = assertThrows(CompletionException.class, second::join);
        HttpError http = assertInstanceOf(HttpError.class, e.getCause());
        assertEquals(503, http.status());
        assertEquals(2, f.vs.ports().current().size(), "the mapping that could not be written is undone (vm0 and LOCAL stay)");
        assertEquals(List.of(OFPortReason.ADD, OFPortReason.DELETE), f.toController.stream()
                .map(m -> ((OFPortStatus) m).getReason()).toList(), "and the controllers are told");

        HttpError refused = assertThrows(HttpError.class, () -> api.handle("DELETE", "/v1/ports/1", null, null));
        assertEquals(503, refused.status());
        assertTrue(refused.getMessage().contains("No space left on device"), refused.getMessage());
        assertEquals(2, f.vs.ports().current().size(), "vm0 stays");
        JsonNode health = api.handle("GET", "/v1/health", null, null).join().body();
        assertEquals("degraded", health.get("status").asText());
        assertEquals(1, health.get("state_file").get("write_failures").asInt());
        assertEquals(1, health.get("state_file").get("refused_requests").asInt());
    }
}
