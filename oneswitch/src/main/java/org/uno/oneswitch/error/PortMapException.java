package org.uno.oneswitch.error;

/**
 * A port-map change refused: the request is malformed, names something that does not exist, or
 * conflicts with the current map. The REST layer answers 400, 404 or 409 accordingly.
 */
public final class PortMapException extends Exception {
    /** Why the change was refused. */
    public enum Reason {
        BAD_REQUEST, NOT_FOUND, CONFLICT
    }

    private final Reason reason;

    public PortMapException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
