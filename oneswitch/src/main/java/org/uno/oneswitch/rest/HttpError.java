package org.uno.oneswitch.rest;

/** An HTTP error answer: status and the reason shown as {"error": reason}. */
final class HttpError extends Exception {
    private static final long serialVersionUID = 1L;

    private final int status;

    HttpError(int status, String reason) {
        super(reason);
        this.status = status;
    }

    int status() {
        return status;
    }
}
