package org.uno.oneswitch.plan;

import java.util.List;
import java.util.Objects;

import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.model.Instruction;

/** A physical flow entry as planned (or as found on a switch): key, instructions and cookie. */
public record InstalledEntry(PhysicalKey key, List<Instruction> instructions, U64 cookie) {
    public InstalledEntry {
        Objects.requireNonNull(key, "key");
        instructions = List.copyOf(instructions);
        Objects.requireNonNull(cookie, "cookie");
    }
}
