package org.uno.oneswitch.rest;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Query-string parameters of a REST request. */
final class Query {
    private Query() {
    }

    /** The parameters of {@code raw} (null or empty for none); a repeated name keeps its last value. */
    static Map<String, String> parse(String raw) throws HttpError {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new HttpError(400, "query parameter '" + pair + "' has no value");
            }
            out.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
        }
        return out;
    }

    /** Parameter {@code name} as a number (decimal, or hexadecimal with 0x; 64-bit unsigned). */
    static long number(Map<String, String> q, String name) throws HttpError {
        String v = q.get(name);
        try {
            return v.startsWith("0x") || v.startsWith("0X") ? Long.parseUnsignedLong(v.substring(2), 16)
                    : Long.parseUnsignedLong(v);
        } catch (NumberFormatException e) {
            throw new HttpError(400, "'" + name + "' must be a number, not '" + v + "'");
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
