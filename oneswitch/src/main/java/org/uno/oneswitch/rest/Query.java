package org.uno.oneswitch.rest;

import java.util.Map;

/** Query-string parameters of a REST request (decoded by the server; each given once). */
final class Query {
    private Query() {
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
}
