package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.TranslationConflictException;

/**
 * Flow-id tags: one per set of remote egress ports, allocated after the last one (a freed tag comes
 * back as late as possible, so a packet in flight never meets its tag reused), and refused, not
 * wrapped, when every tag is in use (the documented limit, DESIGN.md "What cannot be translated").
 */
class TagSpaceTest {
    private final TagSpace tags = new TagSpace();

    @Test
    void aSetKeepsItsTagAndAFreedTagComesBackLast() throws Exception {
        int a = tags.reserve(List.of(OFPort.of(3), OFPort.of(4)));
        assertEquals(a, tags.reserve(List.of(OFPort.of(4), OFPort.of(3))), "the same set, in any order");
        int b = tags.reserve(List.of(OFPort.of(5)));
        assertEquals(List.of(Layout.FIRST_TAG, Layout.FIRST_TAG + 1), List.of(a, b));
        tags.retain(b);
        tags.sweep();   // a is referenced by no entry
        assertEquals(List.of(OFPort.of(5)), tags.portsOf(b));
        assertTrue(tags.portsOf(a).isEmpty(), "freed");
        assertEquals(b + 1, tags.reserve(List.of(OFPort.of(6))), "not the freed tag");
    }

    @Test
    void whenEveryTagIsInUseANewSetIsRefusedAndTheOthersKeepTheirs() throws Exception {
        for (int p = 1; p <= Layout.LAST_TAG; p++) {
            tags.reserve(List.of(OFPort.of(p)));
        }
        assertEquals(Layout.LAST_TAG - Layout.FIRST_TAG + 1, tags.size());
        TranslationConflictException e = assertThrows(TranslationConflictException.class,
                () -> tags.reserve(List.of(OFPort.of(1), OFPort.of(2))));
        assertTrue(e.getMessage().contains("flow-id tags are in use"), e.getMessage());
        assertEquals(7, tags.reserve(List.of(OFPort.of(7))), "a set that has a tag still gets it");
    }
}
