package org.uno.oneswitch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.uno.oneswitch.testing.Fixtures.OF13;
import static org.uno.oneswitch.testing.Fixtures.apply;
import static org.uno.oneswitch.testing.Fixtures.inPort;
import static org.uno.oneswitch.testing.Fixtures.markerArrived;
import static org.uno.oneswitch.testing.Fixtures.match;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.protocol.OFFlowMod;
import org.projectfloodlight.openflow.protocol.OFFlowModCommand;
import org.projectfloodlight.openflow.protocol.OFMessage;
import org.projectfloodlight.openflow.protocol.OFMeterFlags;
import org.projectfloodlight.openflow.protocol.OFPacketOut;
import org.projectfloodlight.openflow.protocol.action.OFActionOutput;
import org.projectfloodlight.openflow.protocol.instruction.OFInstructionApplyActions;
import org.projectfloodlight.openflow.protocol.match.MatchField;
import org.projectfloodlight.openflow.types.DatapathId;
import org.projectfloodlight.openflow.types.OFPort;
import org.projectfloodlight.openflow.types.U64;
import org.uno.oneswitch.error.PortMapException;
import org.uno.oneswitch.model.FlowFilter;
import org.uno.oneswitch.model.FlowModRequest;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.Link;
import org.uno.oneswitch.model.PortMap;
import org.uno.oneswitch.model.PhysicalPort;
import org.uno.oneswitch.model.PortSpec;
import org.uno.oneswitch.model.SwitchSpec;
import org.uno.oneswitch.model.Topology;
import org.uno.oneswitch.model.VirtualMeter;
import org.uno.oneswitch.rest.RestApi;
import org.uno.oneswitch.testing.RecordingNetwork;
import org.uno.oneswitch.testing.RecordingNotifier;

/**
 * Port remapping over in-memory switches: the stages in order (new entries, then the switch-over),
 * drain markers, no PORT_STATUS, the old entries kept for the grace period and deleted after it.
 */
class RemapServiceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** host: PCIe 1, VM 2, NF port 5; snic0: PCIe 1, wire 2, NF ports 5 and 6. */
    private final Topology topology = new Topology(List.of(
            new SwitchSpec("host", SwitchSpec.Role.HOST, DatapathId.of(1), List.of(
                    new PortSpec("ph0", OFPort.of(1), PortSpec.Kind.PCIE), new PortSpec("vm0", OFPort.of(2), PortSpec.Kind.VM),
                    new PortSpec("nfh", OFPort.of(5), PortSpec.Kind.NF))),
            new SwitchSpec("snic0", SwitchSpec.Role.SNIC, DatapathId.of(2), List.of(
                    new PortSpec("ps0", OFPort.of(1), PortSpec.Kind.PCIE), new PortSpec("w0", OFPort.of(2), PortSpec.Kind.WIRE),
                    new PortSpec("nfs", OFPort.of(5), PortSpec.Kind.NF),
                    new PortSpec("nfs2", OFPort.of(6), PortSpec.Kind.NF)))),
            List.of(new Link(new PhysicalPort("host", OFPort.of(1)), new PhysicalPort("snic0", OFPort.of(1)))));
    private final RecordingNetwork net = new RecordingNetwork(topology);
    private final List<OFMessage> toController = new ArrayList<>();
    private final List<Runnable> timers = new ArrayList<>();
    private final VirtualSwitch vs = new VirtualSwitch(DatapathId.of(9), 8, topology, net,
            new RecordingNotifier(toController), () -> 0L, (ms, task) -> timers.add(task), 1000);

    RemapServiceTest() throws Exception {
        vs.ports().autoMap(EnumSet.of(PortSpec.Kind.VM, PortSpec.Kind.WIRE));
        vs.ports().add(new PortRequest("host", "nfh", null, 10L, "nf0"));
        flow(1, match(inPort(2)), 10);
        flow(2, match(inPort(10)), 1);
        toController.clear();
        net.takeSent("host");
        net.takeSent("snic0");
    }

    private void flow(int priority, org.uno.oneswitch.model.FlowMatch m, int output) throws Exception {
        vs.flows().flowMod(new FlowModRequest(FlowModRequest.Command.ADD, new FlowFilter(0, m, true, priority, U64.ZERO,
                U64.ZERO, OFPort.ANY, org.projectfloodlight.openflow.types.OFGroup.ANY), apply(out(output)), U64.ZERO,
                java.util.Set.of(), 0, 0), (s, e) -> {
                });
    }

    /**
     * The VM's rule and the NF's apply one meter: once the NF moves to the sNIC their packets would enter on two
     * switches, so the same port map change makes the host the pipeline home, and moving it back ends that.
     */
    @Test
    void remappingAMeteredPortToTheSnicMakesTheHostItsPipelineHome() throws Exception {
        vs.meters().restore(new VirtualMeter(7, Set.of(OFMeterFlags.PKTPS), List.of(OF13.meterBands().drop(100, 0))));
        List<Instruction> metered = new ArrayList<>(List.of(new Instruction.Meter(7)));
        metered.addAll(apply(out(10)));
        assertEquals("host", vs.ports().current().physical(OFPort.of(1)).orElseThrow().switchId());
        vs.flows().flowMod(new FlowModRequest(FlowModRequest.Command.ADD, new FlowFilter(0, match(inPort(1)), true, 3,
                U64.ZERO, U64.ZERO, OFPort.ANY, org.projectfloodlight.openflow.types.OFGroup.ANY), metered, U64.ZERO,
                java.util.Set.of(), 0, 0), (s, e) -> {
                });
        metered.set(1, apply(out(1)).get(0));
        vs.flows().flowMod(new FlowModRequest(FlowModRequest.Command.ADD, new FlowFilter(0, match(inPort(10)), true, 3,
                U64.ZERO, U64.ZERO, OFPort.ANY, org.projectfloodlight.openflow.types.OFGroup.ANY), metered, U64.ZERO,
                java.util.Set.of(), 0, 0), (s, e) -> {
                });
        assertEquals(Optional.empty(), vs.ports().current().pipelineHome());
        remapAndDrain(new PortRequest("snic0", "nfs", null, null, null));
        assertEquals(Optional.of("host"), vs.ports().current().pipelineHome());
        assertTrue(vs.ports().current().isHomed(OFPort.of(10)));
        assertEquals(Optional.of(OFPort.of(10)), vs.ports().current().virtualOfIngress(new PhysicalPort("host",
                PortMap.homedNumber(OFPort.of(10)))), "the NF's packets enter on the host with a homed number");
        assertTrue(net.pipeline("snic0").isEmpty(), "the sNIC runs no virtual table");
        // Unmapping the wire (port 2, on the sNIC too) keeps the home, and the NF's rules, which do not touch it,
        // stay as they are: homed numbers follow the port alone.
        OFPort nf = PortMap.homedNumber(OFPort.of(10));
        assertTrue(net.pipeline("host").stream().anyMatch(f -> nf.equals(f.getMatch().get(MatchField.IN_PORT))));
        vs.ports().remove(OFPort.of(2));
        assertEquals(Optional.of("host"), vs.ports().current().pipelineHome());
        assertTrue(net.takeSent("host").stream().noneMatch(m -> m instanceof OFFlowMod f
                && f.getTableId().getValue() == 1 && nf.equals(f.getMatch().get(MatchField.IN_PORT))),
                "the NF's rules are not sent again");
        remapAndDrain(new PortRequest("host", "nfh", null, null, null));
        assertEquals(Optional.empty(), vs.ports().current().pipelineHome());
    }

    /** Remaps port 10 to {@code to}, returns the drain markers, runs the timers; returns what each switch got. */
    private java.util.Map<String, List<OFMessage>> remapAndDrain(PortRequest to) throws Exception {
        CompletableFuture<RemapService.Report> done = vs.remaps().remap(OFPort.of(10), to);
        java.util.Map<String, List<OFMessage>> sent = new java.util.HashMap<>();
        for (String sw : List.of("host", "snic0")) {
            sent.put(sw, net.takeSent(sw));
            for (OFMessage m : sent.get(sw)) {
                if (m instanceof OFPacketOut marker) {
                    vs.packetIn(sw.equals("host") ? "snic0" : "host", markerArrived(marker));
                }
            }
        }
        assertTrue(done.get().changed());
        timers.forEach(Runnable::run);
        timers.clear();
        return sent;
    }

    @Test
    void remapMovesTheEntriesInStagesAndCompletesAfterTheDrain() throws Exception {
        CompletableFuture<RemapService.Report> done = vs.remaps().remap(OFPort.of(10),
                new PortRequest("snic0", "nfs", null, null, null));
        assertFalse(vs.gate().isOpen(), "controller requests wait while the remap is applied");
        List<OFMessage> snic = net.takeSent("snic0");
        List<OFFlowMod> adds = flowMods(snic, OFFlowModCommand.ADD);
        List<OFFlowMod> modifies = flowMods(snic, OFFlowModCommand.MODIFY_STRICT);
        assertTrue(adds.stream().anyMatch(f -> OFPort.of(5).equals(f.getMatch().get(MatchField.IN_PORT))),
                "the NF's rule on its new port");
        assertTrue(snic.indexOf(adds.get(0)) < snic.indexOf(modifies.get(0)), "new entries before the switch-over");
        assertEquals(List.of(), flowMods(net.takeSent("host"), OFFlowModCommand.DELETE_STRICT), "nothing deleted yet");
        assertFalse(done.isDone(), "waiting for the drain marker");
        OFPacketOut marker = (OFPacketOut) snic.stream().filter(m -> m instanceof OFPacketOut).findFirst().orElseThrow();
        vs.packetIn("host", markerArrived(marker));
        RemapService.Report r = done.get();
        assertTrue(r.changed() && r.drained());
        assertEquals(List.of("add", "switch", "drain"), r.stages().stream().map(RemapService.Stage::name).toList());
        // a cached datapath drop for a new entry's match must be gone before traffic is switched to it
        assertEquals(2, net.settled.get("snic0"), "the switch with new entries is settled after the add and the switch");
        assertTrue(vs.gate().isOpen());
        assertEquals(List.of(), toController, "no PORT_STATUS, no packet-in for a remap");
        assertEquals("snic0", vs.ports().current().get(OFPort.of(10)).orElseThrow().physical().switchId());

        timers.forEach(Runnable::run);
        List<OFFlowMod> gone = flowMods(net.takeSent("host"), OFFlowModCommand.DELETE_STRICT);
        assertTrue(gone.stream().anyMatch(f -> OFPort.of(5).equals(f.getMatch().get(MatchField.IN_PORT))),
                "after the grace period the NF's old rule goes");
    }

    @Test
    void aVirtualPortWhoseHomedNumberIsAHostPortIsRefused() throws Exception {
        // homed numbers are 0xff00 less the virtual port's: 0xff00 - 5 would take the NF port's packets
        // on the host for its own while the host is the pipeline home
        PortMapException clash = assertThrows(PortMapException.class, () -> vs.ports().add(
                new PortRequest("snic0", "nfs2", null, 0xff00L - 5, null)));
        assertEquals(PortMapException.Reason.CONFLICT, clash.reason());
        assertTrue(clash.getMessage().contains("virtual port 65275 would enter the pipeline on the host as number 5, which the host's port nfh has"), clash.getMessage());
        assertTrue(vs.ports().current().byPhysical(new PhysicalPort("snic0", OFPort.of(6))).isEmpty(),
                "nothing is mapped");
        assertEquals(OFPort.of(0xff00 - 6), vs.ports().add(new PortRequest("snic0", "nfs2", null, 0xff00L - 6, null))
                .virtualPort(), "a number whose homed number no host port has is taken");
    }

    @Test
    void remapToAMappedPortIsRefusedAndToTheSamePortChangesNothing() throws Exception {
        PortMapException taken = assertThrows(PortMapException.class, () -> vs.remaps().remap(OFPort.of(10),
                new PortRequest("host", "vm0", null, null, null)));
        assertEquals(PortMapException.Reason.CONFLICT, taken.reason());
        assertFalse(vs.remaps().remap(OFPort.of(10), new PortRequest("host", "nfh", null, null, null)).get().changed());
        assertEquals(List.of(), net.takeSent("host"));
    }

    @Test
    void anEntryAnEarlierRemapLeftIsRedirectedBeforeTrafficIsSwitchedToIt() throws Exception {
        // the VM (host) sends to the NF; host -> snic0:5 -> host: snic0 keeps, for the grace period,
        // the retired entry delivering the NF's tag from the PCIe link to port 5
        flow(3, match(inPort(1)), 10);
        moveAndDrain(new PortRequest("snic0", "nfs", null, null, null), "snic0", "host");
        moveAndDrain(new PortRequest("host", "nfh", null, null, null), "host", "snic0");
        net.holdBarriers();
        CompletableFuture<RemapService.Report> third = vs.remaps().remap(OFPort.of(10),
                new PortRequest("snic0", "nfs2", null, null, null));
        List<OFMessage> snic = net.takeSent("snic0");
        assertTrue(snic.stream().anyMatch(m -> m instanceof OFFlowMod f && f.getCommand() != OFFlowModCommand.DELETE_STRICT
                        && OFPort.of(1).equals(f.getMatch().get(MatchField.IN_PORT)) && outputs(f, 6)),
                "the delivery from the PCIe link goes to the new port in the add stage: " + snic);
        assertEquals(List.of(), flowMods(net.takeSent("host"), OFFlowModCommand.MODIFY_STRICT),
                "the host switches its traffic over only once the add stage is settled");
        net.releaseBarriers();
        deliverMarker("snic0", "host");
        assertTrue(third.get().changed());
    }

    @Test
    void everyOtherMutatorWaitsWhileARemapIsApplied() throws Exception {
        RestApi api = new RestApi(vs, sw -> true, () -> 0, (ms, task) -> timers.add(task),
                new LoopWatch(System::nanoTime, (ms, task) -> { }));
        OFPort vm = vs.ports().current().mappings().stream().filter(m -> m.physicalName().equals("vm0")).findFirst()
                .orElseThrow().virtualPort();
        net.holdBarriers();
        CompletableFuture<RemapService.Report> first = vs.remaps().remap(OFPort.of(10),
                new PortRequest("snic0", "nfs", null, null, null));
        net.takeSent("host");
        List<OFMessage> addStage = net.takeSent("snic0");
        assertFalse(addStage.isEmpty(), "the remap's first stage is out, waiting to be settled");

        // Every other mutator, meanwhile: REST remap, port add and port delete, a switch reconnecting, a
        // switch's ports changing, a controller's flow_mod through its connection's wait for the gate.
        CompletableFuture<RestApi.Response> second = api.handle("PUT", "/v1/ports/10", null,
                JSON.readTree("{\"switch\": \"snic0\", \"port\": \"nfs2\"}"));
        CompletableFuture<RestApi.Response> added = api.handle("POST", "/v1/ports", null,
                JSON.readTree("{\"switch\": \"host\", \"port\": \"nfh\"}"));
        CompletableFuture<RestApi.Response> removed = api.handle("DELETE", "/v1/ports/" + vm.getPortNumber(), null,
                null);
        vs.switchConnected("host", new SwitchTables(List.of(), List.of(), List.of(), Optional.empty()));
        vs.portsChanged("snic0");
        vs.gate().whenOpen(() -> {
            try {
                flow(7, match(inPort(vm.getPortNumber())), 10);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(List.of(), net.takeSent("host"), "nothing reaches a switch between a remap's stages");
        assertEquals(List.of(), net.takeSent("snic0"));
        assertFalse(second.isDone() || added.isDone() || removed.isDone());

        net.releaseBarriers();
        deliverMarker("snic0", "host");
        assertTrue(first.get().drained());
        // The second remap started then, alone: the rest waits for it in turn.
        assertFalse(second.isDone());
        assertFalse(added.isDone() || removed.isDone(), "queued behind the second remap");
        deliverMarker("host", "snic0");
        assertEquals(200, second.get().status());
        assertEquals(201, added.get().status());
        assertEquals(204, removed.get().status());
        PortMap now = vs.ports().current();
        assertEquals("nfs2", now.get(OFPort.of(10)).orElseThrow().physicalName());
        assertTrue(now.get(vm).isEmpty());
        assertTrue(now.mappings().stream().anyMatch(m -> m.physicalName().equals("nfh")));
        assertTrue(vs.flows().all().stream().anyMatch(r -> r.priority() == 7), "the flow_mod ran too");
        assertTrue(vs.gate().isOpen());
    }

    @Test
    void drainFromCompletesWhenTheMarkersTheSwitchSentAreBackFromTheOthers() throws Exception {
        CompletableFuture<Boolean> drained = vs.remaps().drainFrom("host", 200);
        assertTrue(net.takeSent("snic0").stream().noneMatch(m -> m instanceof OFPacketOut), "the host sends it");
        assertFalse(drained.isDone(), "waiting for the marker");
        deliverMarker("host", "snic0");
        assertTrue(drained.get());
    }

    @Test
    void drainFromIsFalseWhenAMarkerIsLost() throws Exception {
        CompletableFuture<Boolean> drained = vs.remaps().drainFrom("snic0", 200);
        assertEquals(1, net.takeSent("snic0").stream().filter(m -> m instanceof OFPacketOut).count());
        timers.forEach(Runnable::run);     // the timeout, and the marker never arrived
        assertFalse(drained.get());
    }

    private void moveAndDrain(PortRequest target, String to, String from) throws Exception {
        CompletableFuture<RemapService.Report> done = vs.remaps().remap(OFPort.of(10), target);
        deliverMarker(to, from);
        assertTrue(done.get().drained());
        net.takeSent("host");
        net.takeSent("snic0");
    }

    /** Hands OneSwitch the drain marker sent on {@code to} as {@code from} would. */
    private void deliverMarker(String to, String from) {
        OFPacketOut marker = (OFPacketOut) net.takeSent(to).stream().filter(m -> m instanceof OFPacketOut).findFirst()
                .orElseThrow();
        vs.packetIn(from, markerArrived(marker));
    }

    private static boolean outputs(OFFlowMod f, int port) {
        return f.getInstructions().stream().filter(i -> i instanceof OFInstructionApplyActions)
                .flatMap(i -> ((OFInstructionApplyActions) i).getActions().stream())
                .anyMatch(a -> a instanceof OFActionOutput o && o.getPort().equals(OFPort.of(port)));
    }


    private static List<OFFlowMod> flowMods(List<OFMessage> sent, OFFlowModCommand command) {
        return sent.stream().filter(m -> m instanceof OFFlowMod f && f.getCommand() == command)
                .map(m -> (OFFlowMod) m).toList();
    }
}
