package org.uno.oneswitch.codec;

import java.util.List;

import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFHello;
import org.projectfloodlight.openflow.protocol.OFHelloElem;
import org.projectfloodlight.openflow.protocol.OFHelloElemVersionbitmap;
import org.projectfloodlight.openflow.protocol.OFVersion;
import org.projectfloodlight.openflow.types.U32;

/** OpenFlow version negotiation: OneSwitch speaks OpenFlow 1.3 only, on both sides. */
public final class Hellos {
    private static final int OF13 = OFVersion.OF_13.getWireVersion();

    private Hellos() {
    }

    /** Our HELLO: version 1.3 with a version bitmap holding only 1.3. */
    public static OFHello ours(OFFactory of13) {
        OFHelloElem bitmap = of13.buildHelloElemVersionbitmap().setBitmaps(List.of(U32.of(1L << OF13))).build();
        return of13.buildHello().setXid(0).setElements(List.of(bitmap)).build();
    }

    /**
     * True when the peer's HELLO allows OpenFlow 1.3: its version bitmap has 1.3, or (without a
     * bitmap) its version is 1.3 or later.
     */
    public static boolean accepts13(OFHello theirs) {
        List<OFHelloElem> elems = theirs.getVersion().getWireVersion() >= OF13 ? theirs.getElements() : List.of();
        for (OFHelloElem e : elems) {
            if (e instanceof OFHelloElemVersionbitmap b) {
                List<U32> words = b.getBitmaps();
                return !words.isEmpty() && (words.get(0).getValue() & (1L << OF13)) != 0;
            }
        }
        return theirs.getVersion().getWireVersion() >= OF13;
    }
}
