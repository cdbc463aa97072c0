package org.uno.oneswitch.rest;

import java.io.IOException;
import java.io.InputStream;

import com.fasterxml.jackson.databind.JsonNode;

/** The REST API's OpenAPI document, shipped in the jar (src/main/resources/openapi.json). */
final class OpenApi {
    private OpenApi() {
    }

    static JsonNode load() {
        try (InputStream in = OpenApi.class.getResourceAsStream("/openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is missing from the jar");
            }
            return RestServer.JSON.readTree(in);
        } catch (IOException e) {
            throw new IllegalStateException("openapi.json in the jar is not JSON", e);
        }
    }
}
