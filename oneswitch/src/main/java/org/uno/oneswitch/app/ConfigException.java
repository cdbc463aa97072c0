package org.uno.oneswitch.app;

/** Invalid configuration, flags or platform description; the message is the one-line reason shown to the user. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
