package org.uno.oneswitch.south;

import org.projectfloodlight.openflow.protocol.OFMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OneSwitch's connection to a bridge's management Unix socket (the one ovs-ofctl uses), opened when
 * the platform description names it. Flow_mods, packet-outs, stats requests and barriers go here
 * rather than over the controller connection: that one reaches OneSwitch through the platform's
 * socat relay, which adds two process hops to every round trip. The controller connection still
 * identifies the switch and carries its asynchronous messages (a service connection gets none).
 */
final class CommandChannel extends SwitchChannel {
    private static final Logger LOG = LoggerFactory.getLogger(CommandChannel.class);

    private final PhysicalSwitches registry;
    private final String switchId;
    private boolean ready;

    CommandChannel(PhysicalSwitches registry, String switchId, int maxIdleProbes) {
        super(maxIdleProbes);
        this.registry = registry;
        this.switchId = switchId;
    }

    @Override
    String name() {
        return switchId;
    }

    boolean ready() {
        return ready;
    }

    @Override
    void negotiated() {
        ready = true;
        LOG.info("command channel to switch {} open", switchId);
        registry.commandChannelUp(switchId, this);
    }

    @Override
    void onMessage(OFMessage m) {
        LOG.debug("switch {} sent {} on its management socket", switchId, m.getType());
    }

    @Override
    void closed() {
        ready = false;
        registry.commandChannelDown(switchId, this);
    }
}
