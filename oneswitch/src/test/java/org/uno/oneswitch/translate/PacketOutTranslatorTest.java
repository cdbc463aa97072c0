package org.uno.oneswitch.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.uno.oneswitch.testing.Fixtures.out;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.projectfloodlight.openflow.types.OFGroup;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.BadRequestException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.testing.Fixtures;

class PacketOutTranslatorTest {
    private final PacketOutTranslator t = new PacketOutTranslator(Fixtures.topology(1));

    @Test
    void floodFromAVmReachesEveryOtherVirtualPortFromItsOwnSwitch() throws Exception {
        assertEquals(List.of(new PacketOutTranslator.Part("host", OFPort.of(2), List.of(out(3))),
                        new PacketOutTranslator.Part("snic0", OFPort.CONTROLLER, List.of(out(2)))),
                t.translate(OFPort.of(1), List.of(out(OFPort.FLOOD)), Fixtures.ports(1)));
    }

    @Test
    void outputToOneVirtualPortGoesOnlyToItsSwitch() throws Exception {
        assertEquals(List.of(new PacketOutTranslator.Part("snic0", OFPort.CONTROLLER, List.of(out(2)))),
                t.translate(OFPort.CONTROLLER, List.of(out(3)), Fixtures.ports(1)));
    }

    @Test
    void tableRunsThePipelineOfTheIngressSwitch() throws Exception {
        assertEquals(List.of(new PacketOutTranslator.Part("snic0", OFPort.of(2), List.of(out(OFPort.TABLE)))),
                t.translate(OFPort.of(3), List.of(out(OFPort.TABLE)), Fixtures.ports(1)));
        assertThrows(BadActionException.class, () -> t.translate(OFPort.CONTROLLER, List.of(out(OFPort.TABLE)),
                Fixtures.ports(1)));
        assertThrows(BadRequestException.class, () -> t.translate(OFPort.NORMAL, List.of(out(1)), Fixtures.ports(1)));
    }

    @Test
    void normalRunsOnceOnTheIngressSwitchTheHostsForTheController() throws Exception {
        assertEquals(List.of(new PacketOutTranslator.Part("host", OFPort.CONTROLLER, List.of(NormalPipeline.GROUP))),
                t.translate(OFPort.CONTROLLER, List.of(out(OFPort.NORMAL)), Fixtures.ports(1)));
        assertEquals(List.of(new PacketOutTranslator.Part("host", OFPort.CONTROLLER, List.of(out(2))),
                        new PacketOutTranslator.Part("snic0", OFPort.of(2), List.of(NormalPipeline.GROUP))),
                t.translate(OFPort.of(3), List.of(out(OFPort.NORMAL), out(1)), Fixtures.ports(1)),
                "the explicit output from its own switch, NORMAL where the packet entered");
    }

    @Test
    void aGroupRunsOnceOnTheIngressSwitchAlsoWhenItIsTheOnlyAction() throws Exception {
        Action group = new Action.Group(OFGroup.of(5));
        assertEquals(List.of(new PacketOutTranslator.Part("host", OFPort.CONTROLLER, List.of(group))),
                t.translate(OFPort.CONTROLLER, List.of(group), Fixtures.ports(1)));
        assertEquals(List.of(new PacketOutTranslator.Part("host", OFPort.of(2), List.of(group)),
                        new PacketOutTranslator.Part("snic0", OFPort.CONTROLLER, List.of(out(2)))),
                t.translate(OFPort.of(1), List.of(group, out(3)), Fixtures.ports(1)),
                "the sNIC's copy does not run the group again: its copy on the host reaches the sNIC's ports");
    }
}
