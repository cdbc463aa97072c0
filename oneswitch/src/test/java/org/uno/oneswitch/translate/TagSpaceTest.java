package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.OptionalInt;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.TranslationConflictException;

/**
 * Flow-id tags: one per set of remote egress ports, allocated after the last one (a freed tag comes
 * back as late as possible, so a packet in flight never meets its tag reused); sets of several ports
 * leave the last tags to single ports, and only a single port finding every tag in use is refused.
 */
class TagSpaceTest {
    private final TagSpace tags = new TagSpace();

    @Test
    void aSetKeepsItsTagAndAFreedTagComesBackLast() throws Exception {
        int a = tags.reserve(List.of(OFPort.of(3), OFPort.of(4))).orElseThrow();
        assertEquals(a, tags.reserve(List.of(OFPort.of(4), OFPort.of(3))).orElseThrow(), "the same set, in any order");
        int b = tags.reserve(List.of(OFPort.of(5))).orElseThrow();
        assertEquals(List.of(Layout.FIRST_TAG, Layout.FIRST_TAG + 1), List.of(a, b));
        tags.retain(b);
        tags.sweep();   // a is referenced by no entry
        assertEquals(List.of(OFPort.of(5)), tags.portsOf(b));
        assertTrue(tags.portsOf(a).isEmpty(), "freed");
        assertEquals(OptionalInt.of(b + 1), tags.reserve(List.of(OFPort.of(6))), "not the freed tag");
    }

    @Test
    void setsStopShortOfTheSinglePortReserveAndOnlyMorePortsThanTagsAreRefused() throws Exception {
        TagSpace small = new TagSpace(16, 25, 4);   // 10 tags, the last 4 for single ports only
        for (int p = 1; p <= 6; p++) {
            assertTrue(small.reserve(List.of(OFPort.of(p), OFPort.of(100))).isPresent(), "set " + p);
        }
        assertTrue(small.reserve(List.of(OFPort.of(7), OFPort.of(100))).isEmpty(), "sets are sent port by port now");
        assertEquals(OptionalInt.of(16), small.reserve(List.of(OFPort.of(1), OFPort.of(100))), "a set keeps its tag");
        for (int p = 1; p <= 4; p++) {
            assertTrue(small.reserve(List.of(OFPort.of(p))).isPresent(), "port " + p);
        }
        TranslationConflictException e = assertThrows(TranslationConflictException.class,
                () -> small.reserve(List.of(OFPort.of(5))));
        assertTrue(e.getMessage().contains("flow-id tags are in use"), e.getMessage());
        small.retain(16);
        small.sweep();   // every tag but 16 is referenced by no entry
        assertEquals(1, small.size());
        assertTrue(small.reserve(List.of(OFPort.of(7), OFPort.of(100))).isPresent(), "freed sets make room again");
    }

    @Test
    void theDefaultSpaceIsEveryLabelPastMplsOwnAndKeepsAsManyTagsForSinglePortsAsABridgeHasPorts() throws Exception {
        assertEquals(List.of(16, 0xfffff), List.of(Layout.FIRST_TAG, Layout.LAST_TAG));
        assertEquals(OptionalInt.of(Layout.FIRST_TAG), tags.reserve(List.of(OFPort.of(1), OFPort.of(2))));
        assertTrue(Layout.TAG_GROUP_BASE + Layout.LAST_TAG < Layout.ABSENT_GROUP, "tag groups stay below OFPG_MAX");
    }
}
