package org.uno.oneswitch.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files under src/test/resources/golden: the expected text of a translation. Run the tests
 * with -Dgolden.update=true to (re)write them after an intended change, then review the diff.
 */
public final class Golden {
    private static final Path DIR = Path.of("src/test/resources/golden");

    private Golden() {
    }

    public static void check(String name, String actual) {
        Path file = DIR.resolve(name + ".txt");
        try {
            if (Boolean.getBoolean("golden.update")) {
                Files.createDirectories(DIR);
                Files.writeString(file, actual, StandardCharsets.UTF_8);
            }
            if (!Files.exists(file)) {
                throw new AssertionError("missing golden file " + file + " (run with -Dgolden.update=true)\n" + actual);
            }
            assertEquals(Files.readString(file, StandardCharsets.UTF_8), actual, "golden file " + file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
