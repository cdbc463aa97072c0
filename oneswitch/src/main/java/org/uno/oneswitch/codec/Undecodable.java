package org.uno.oneswitch.codec;

import java.util.Arrays;

/**
 * An OpenFlow frame that could not be decoded: its header fields and the start of its bytes (for
 * the error reply's data), and why.
 *
 * @param version the header's version byte
 * @param type    the header's type byte
 * @param xid     the header's transaction id
 * @param head    up to the first 64 bytes of the frame
 * @param reason  what was wrong
 * @param fatal   true when the stream cannot be framed any further (the connection must close)
 * @param badMatchField true when it did not decode because its match has a field OneSwitch does not support
 */
public record Undecodable(int version, int type, long xid, byte[] head, String reason, boolean fatal,
                          boolean badMatchField) {
    public Undecodable {
        head = head.clone();
    }

    @Override
    public byte[] head() {
        return head.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Undecodable u && version == u.version && type == u.type && xid == u.xid
                && Arrays.equals(head, u.head) && reason.equals(u.reason) && fatal == u.fatal
                && badMatchField == u.badMatchField;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(head) * 31 + (int) xid;
    }

    @Override
    public String toString() {
        return "undecodable(version=" + version + ",type=" + type + ",xid=" + xid + "): " + reason;
    }
}
