package org.uno.oneswitch.app;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * The state file's framing, after ovsdb-server's log: records one after the other, each a header
 * line {@code ONESWITCH 2 <length> <crc32>} (length in bytes and CRC-32 of the body, 8 hex digits),
 * the body (JSON) and a newline. The first record is a snapshot, written to a new file that
 * replaced the old one atomically; the others are appended.
 *
 * <p>Reading checks every record. A record that is cut short or fails its checksum is the torn
 * tail of a write a crash interrupted when nothing valid follows it (it was never synced, so never
 * acknowledged): it is dropped with what comes after. Anywhere else, or in the first record, it is
 * damage. Pure.
 */
final class StateRecords {
    static final String MAGIC = "ONESWITCH 2 ";
    private static final Pattern HEADER = Pattern.compile("ONESWITCH 2 (\\d{1,10}) ([0-9a-f]{8})");
    private static final int MAX_HEADER = 40;

    /** One record: its position (0 = first), offset and size in the file, and its body. */
    record Record(int index, long offset, int size, byte[] body) {
    }

    /** The valid records, how many bytes they take, and what was dropped as a torn tail, if anything. */
    record Parsed(List<Record> records, long goodBytes, Optional<String> tornTail) {
    }

    /** The file is damaged (not a torn tail): the reason, naming the record and its offset. */
    static final class DamagedException extends Exception {
        private static final long serialVersionUID = 1L;

        DamagedException(String reason) {
            super(reason);
        }
    }

    private StateRecords() {
    }

    /** The bytes of a record with {@code body}. */
    static byte[] frame(byte[] body) {
        CRC32 crc = new CRC32();
        crc.update(body);
        byte[] head = String.format("%s%d %08x\n", MAGIC, body.length, crc.getValue()).getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[head.length + body.length + 1];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        out[out.length - 1] = '\n';
        return out;
    }

    /** The records of {@code data}, a whole state file. */
    static Parsed parse(byte[] data) throws DamagedException {
        if (data.length == 0) {
            throw new DamagedException("the file is empty");
        }
        List<Record> out = new ArrayList<>();
        int pos = 0;
        while (pos < data.length) {
            try {
                Record r = at(data, pos, out.size());
                out.add(r);
                pos += r.size();
            } catch (BadRecord e) {
                String where = "record " + (out.size() + 1) + " at byte " + pos + ": " + e.getMessage();
                if (out.isEmpty() || validRecordAfter(data, pos)) {
                    throw new DamagedException(where);
                }
                return new Parsed(out, pos, Optional.of(where + " (" + (data.length - pos) + " bytes)"));
            }
        }
        return new Parsed(out, pos, Optional.empty());
    }

    private static final class BadRecord extends Exception {
        private static final long serialVersionUID = 1L;

        BadRecord(String reason) {
            super(reason);
        }
    }

    private static Record at(byte[] data, int pos, int index) throws BadRecord {
        int nl = -1;
        for (int i = pos; i < Math.min(data.length, pos + MAX_HEADER); i++) {
            if (data[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) {
            throw new BadRecord(data.length - pos < MAX_HEADER ? "header cut short" : "no record header");
        }
        Matcher m = HEADER.matcher(new String(data, pos, nl - pos, StandardCharsets.ISO_8859_1));
        if (!m.matches()) {
            throw new BadRecord("not a record header ('" + MAGIC + "<length> <crc32>')");
        }
        long length = Long.parseLong(m.group(1));
        long bodyStart = nl + 1;
        if (bodyStart + length + 1 > data.length) {
            throw new BadRecord("cut short: " + length + " bytes announced, " + Math.max(0, data.length - bodyStart - 1)
                    + " there");
        }
        int start = (int) bodyStart;
        int len = (int) length;
        CRC32 crc = new CRC32();
        crc.update(data, start, len);
        if (crc.getValue() != Long.parseLong(m.group(2), 16)) {
            throw new BadRecord("checksum mismatch");
        }
        if (data[start + len] != '\n') {
            throw new BadRecord("no newline after the body");
        }
        byte[] body = new byte[len];
        System.arraycopy(data, start, body, 0, len);
        return new Record(index, pos, start + len + 1 - pos, body);
    }

    /** Whether a valid record starts at a line start after {@code pos}: then a bad record there is damage. */
    private static boolean validRecordAfter(byte[] data, int pos) {
        byte[] magic = MAGIC.getBytes(StandardCharsets.US_ASCII);
        for (int i = pos; i + magic.length < data.length; i++) {
            if (data[i] == '\n' && startsWith(data, i + 1, magic)) {
                try {
                    at(data, i + 1, -1);
                    return true;
                } catch (BadRecord e) {
                    // keep looking
                }
            }
        }
        return false;
    }

    private static boolean startsWith(byte[] data, int at, byte[] prefix) {
        for (int i = 0; i < prefix.length; i++) {
            if (data[at + i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }
}
