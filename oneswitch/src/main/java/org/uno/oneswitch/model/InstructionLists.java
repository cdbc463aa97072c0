package org.uno.oneswitch.model;

import java.util.List;

/**
 * Instruction lists recur across rules (a learning switch's thousands of rules output to a handful
 * of ports): entries keep one shared copy of each, which saves a rule five objects on each side of
 * the translation, and with them most of the garbage collector's copying.
 */
public final class InstructionLists {
    private static final Interner<List<Instruction>> KEPT = new Interner<>(4096);

    private InstructionLists() {
    }

    /** An immutable copy of {@code instructions}, shared with the equal lists other entries keep. */
    public static List<Instruction> of(List<Instruction> instructions) {
        return KEPT.intern(List.copyOf(instructions));
    }
}
