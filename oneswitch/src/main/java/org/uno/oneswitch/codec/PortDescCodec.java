package org.uno.oneswitch.codec;

import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFPortDesc;
import org.uno.oneswitch.stats.PortDescription;

/** OpenFlow 1.3 port descriptions to and from {@link PortDescription}. */
public final class PortDescCodec {
    private PortDescCodec() {
    }

    public static PortDescription decode(OFPortDesc d) {
        return new PortDescription(d.getPortNo(), d.getName(), d.getHwAddr(), d.getConfig(), d.getState(),
                d.getCurr(), d.getAdvertised(), d.getSupported(), d.getPeer(), d.getCurrSpeed(), d.getMaxSpeed());
    }

    public static OFPortDesc encode(OFFactory f, PortDescription d) {
        return f.buildPortDesc().setPortNo(d.port()).setName(d.name()).setHwAddr(d.hwAddr()).setConfig(d.config())
                .setState(d.state()).setCurr(d.curr()).setAdvertised(d.advertised()).setSupported(d.supported())
                .setPeer(d.peer()).setCurrSpeed(d.currSpeed()).setMaxSpeed(d.maxSpeed()).build();
    }
}
