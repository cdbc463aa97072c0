package org.uno.oneswitch.error;

/**
 * A port-map change refused: the request is malformed, names something that does not exist, or
 * conflicts with the current map. The REST layer answers 400, 404 or 409 accordingly.
 */
public final class PortMapException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why the change was refused. */
    public enum Reason {
        BAD_REQUEST, NOT_FOUND, CONFLICT,
        /** The switch has not reported a port of that name or number (it may be about to). */
        PORT_NOT_SEEN
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
