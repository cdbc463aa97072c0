package org.uno.oneswitch.endpoint;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import org.projectfloodlight.openflow.protocol.OFAsyncSet;
import org.projectfloodlight.openflow.protocol.OFBadRequestCode;
import org.projectfloodlight.openflow.protocol.OFCapabilities;
import org.projectfloodlight.openflow.protocol.OFConfigFlags;
import org.projectfloodlight.openflow.protocol.OFControllerRole;
import org.projectfloodlight.openflow.protocol.OFEchoRequest;
import org.projectfloodlight.openflow.protocol.OFFactory;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModFailedCode;
import org.projectfloodlight.openflow.protocol.OFGroupMod;
import org.projectfloodlight.openflow.protocol.OFGroupModFailedCode;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMeterMod;
import org.projectfloodlight.openflow.protocol.OFPacketOut;
import org.projectfloodlight.openflow.protocol.OFPortMod;
import org.projectfloodlight.openflow.protocol.OFPortModFailedCode;
import org.projectfloodlight.openflow.protocol.OFRoleRequest;
import org.projectfloodlight.openflow.protocol.OFSetConfig;
import org.projectfloodlight.openflow.protocol.OFStatsRequest;
import org.projectfloodlight.openflow.types.OFBufferId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.uno.oneswitch.codec.FlowModCodec;
import org.uno.oneswitch.codec.GroupModCodec;
import org.uno.oneswitch.codec.InstructionCodec;
import org.uno.oneswitch.codec.MeterModCodec;
import org.uno.oneswitch.core.Gate;
import org.uno.oneswitch.core.PhysicalNetwork;
import org.uno.oneswitch.core.VirtualSwitch;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.error.FlowModFailedException;
import org.uno.oneswitch.error.GroupModFailedException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.error.PortModFailedException;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.GroupModRequest;
import org.uno.oneswitch.model.MeterModRequest;
import org.uno.oneswitch.model.PortMapping;
import org.uno.oneswitch.model.PortModRequest;
import org.uno.oneswitch.stats.PortDescription;

/**
 * The virtual switch's answer to each controller message type. Messages that change state are
 * refused for slave connections; unknown and unsupported types get BAD_REQUEST/BAD_TYPE.
 */
final class RequestHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RequestHandler.class);
    /**
     * The longest frame a PACKET_OUT may carry. A frame the bridges return to OneSwitch in a
     * PACKET_IN must fit OpenFlow's 16-bit message length with the PACKET_IN's header and match,
     * and with what actions push on the way (VLAN, MPLS, OneSwitch's flow-id tag): a longer one
     * made Open vSwitch send a PACKET_IN whose length wrapped to 0, which no receiver can frame.
     */
    static final int MAX_PACKET_OUT_FRAME = 0xffff - 256;
    /** The statistics MultipartHandler answers (queue statistics: an empty list, there are no queues). */
    private static final Set<OFCapabilities> CAPABILITIES = EnumSet.of(OFCapabilities.FLOW_STATS,
            OFCapabilities.TABLE_STATS, OFCapabilities.PORT_STATS, OFCapabilities.GROUP_STATS,
            OFCapabilities.QUEUE_STATS);

    private final VirtualSwitch vs;
    private final PhysicalNetwork net;
    private final Roles roles;
    private final MultipartHandler multiparts;
    private Set<OFConfigFlags> configFlags = EnumSet.noneOf(OFConfigFlags.class);

    RequestHandler(VirtualSwitch vs, PhysicalNetwork net, Roles roles, MultipartHandler multiparts) {
        this.vs = vs;
        this.net = net;
        this.roles = roles;
        this.multiparts = multiparts;
    }

    void handle(ControllerConnection c, OFMessage m) throws OpenFlowException {
        OFFactory f = c.factory();
        switch (m.getType()) {
            case HELLO, ECHO_REPLY -> {
            }
            case ECHO_REQUEST -> c.send(f.buildEchoReply().setXid(m.getXid()).setData(((OFEchoRequest) m).getData())
                    .build());
            case FEATURES_REQUEST -> c.send(f.buildFeaturesReply().setXid(m.getXid()).setDatapathId(vs.datapathId())
                    .setNBuffers(0).setNTables((short) vs.tables()).setCapabilities(CAPABILITIES).build());
            case GET_CONFIG_REQUEST -> c.send(f.buildGetConfigReply().setXid(m.getXid()).setFlags(configFlags)
                    .setMissSendLen(c.missSendLen()).build());
            case SET_CONFIG -> {
                OFSetConfig sc = (OFSetConfig) m;
                configFlags = sc.getFlags().isEmpty() ? EnumSet.noneOf(OFConfigFlags.class) : EnumSet.copyOf(sc.getFlags());
                c.setMissSendLen(sc.getMissSendLen());
            }
            case SET_ASYNC -> c.setAsync(AsyncConfig.of((OFAsyncSet) m));
            case GET_ASYNC_REQUEST -> c.send(c.async().reply(f, m.getXid()));
            // With a state file, also once every change before it is on disk; changes that could not be
            // written were undone (their requests got errors), and the switches answer a barrier after that.
            case BARRIER_REQUEST -> c.barrierReply(CompletableFuture.allOf(vs.barrier(), vs.state().durable()
                            .exceptionallyCompose(undone -> vs.barrier())))
                    .whenComplete((v, t) -> c.send(f.buildBarrierReply().setXid(m.getXid()).build()));
            case FLOW_MOD -> {
                requireWritable(c);
                FlowModRequest req = FlowModCodec.decode((OFFlowMod) m, vs.tables());
                durably(c, m, () -> vs.flows().flowMod(req, forwardErrors(c, m)),
                        r -> new FlowModFailedException(OFFlowModFailedCode.EPERM, r));
            }
            case GROUP_MOD -> {
                requireWritable(c);
                GroupModRequest req = GroupModCodec.decode((OFGroupMod) m);
                durably(c, m, () -> vs.groups().groupMod(req, forwardErrors(c, m)),
                        r -> new GroupModFailedException(OFGroupModFailedCode.EPERM, r));
            }
            case PACKET_OUT -> {
                requireWritable(c);
                packetOut(c, (OFPacketOut) m);
            }
            case PORT_MOD -> {
                requireWritable(c);
                portMod(c, (OFPortMod) m);
            }
            case STATS_REQUEST -> multiparts.handle(c, (OFStatsRequest<?>) m);
            case ROLE_REQUEST -> c.send(roles.handle(c, (OFRoleRequest) m));
            case ERROR -> LOG.info("controller sent error {}", m);
            case EXPERIMENTER -> throw new BadRequestException(OFBadRequestCode.BAD_EXPERIMENTER,
                    "experimenter messages are not supported");
            case METER_MOD -> {
                requireWritable(c);
                MeterModRequest req = MeterModCodec.decode((OFMeterMod) m);
                durably(c, m, () -> vs.meters().meterMod(req, forwardErrors(c, m)),
                        r -> new BadRequestException(OFBadRequestCode.EPERM, r));
            }
            default -> throw new BadRequestException(OFBadRequestCode.BAD_TYPE, "message type " + m.getType()
                    + " is not supported");
        }
    }

    /** The gate controller requests wait behind while a remap is applied. */
    Gate gate() {
        return vs.gate();
    }

    private void packetOut(ControllerConnection c, OFPacketOut po) throws OpenFlowException {
        if (!po.getBufferId().equals(OFBufferId.NO_BUFFER)) {
            throw new BadRequestException(OFBadRequestCode.BUFFER_UNKNOWN, "buffer " + po.getBufferId()
                    + " unknown: OneSwitch never buffers packets");
        }
        if (po.getData().length > MAX_PACKET_OUT_FRAME) {
            throw new BadRequestException(OFBadRequestCode.BAD_PACKET, "a frame of " + po.getData().length
                    + " bytes is longer than " + MAX_PACKET_OUT_FRAME + " (it could not come back in a PACKET_IN)");
        }
        vs.packets().packetOut(po.getInPort(), InstructionCodec.decodeActions(po.getActions(), null), po.getData(),
                forwardErrors(c, po));
    }

    /** PORT_MOD of a virtual port goes to its physical port (config bits apply to every use of the port). */
    private void portMod(ControllerConnection c, OFPortMod pm) throws OpenFlowException {
        PortMapping m = vs.ports().current().get(pm.getPortNo()).orElseThrow(() -> new PortModFailedException(
                OFPortModFailedCode.BAD_PORT, "no virtual port " + pm.getPortNo()));
        PortDescription desc = vs.ports().describe(m);
        if (!desc.hwAddr().equals(pm.getHwAddr())) {
            throw new PortModFailedException(OFPortModFailedCode.BAD_HW_ADDR, "port " + pm.getPortNo() + " has address "
                    + desc.hwAddr());
        }
        net.portMod(m.physical().switchId(), new PortModRequest(m.physical().port(), pm.getHwAddr(), pm.getConfig(),
                pm.getMask(), pm.getAdvertise()), forwardErrors(c, pm));
    }

    /** A request that changes the persistent state. */
    private interface Change {
        void apply() throws OpenFlowException;
    }

    /**
     * Applies {@code change} unless the state file cannot take changes now, and answers {@code m}
     * with {@code refusal}'s error if the change is undone later because it could not be written
     * (before the reply to any barrier after it).
     */
    private void durably(ControllerConnection c, OFMessage m, Change change, Function<String, OpenFlowException> refusal)
            throws OpenFlowException {
        vs.state().requireWritable(refusal);
        long mark = vs.state().mark();
        change.apply();
        vs.state().onLost(mark, reason -> c.refuse(refusal.apply(reason), m));
    }

    private static void requireWritable(ControllerConnection c) throws BadRequestException {
        if (c.role() == OFControllerRole.ROLE_SLAVE) {
            throw new BadRequestException(OFBadRequestCode.IS_SLAVE, "connection is a slave");
        }
    }

    /**
     * A physical error caused by {@code request} reaches the controller as the error of {@code
     * request}, once: a switch answers one error per request, and OneSwitch's request may have been
     * several physical messages on several switches.
     */
    private static PhysicalNetwork.ErrorListener forwardErrors(ControllerConnection c, OFMessage request) {
        return new PhysicalNetwork.ErrorListener() {
            private boolean reported;

            @Override
            public void onError(String switchId, OpenFlowException error) {
                if (!reported) {
                    reported = true;
                    c.refuse(error, request);
                }
            }
        };
    }
}
