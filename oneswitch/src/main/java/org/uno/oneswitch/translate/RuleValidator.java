package org.uno.oneswitch.translate;

import java.util.List;
import java.util.Optional;

import org.projectfloodlight.openflow.protocol.OFBadActionCode;
import org.projectfloodlight.openflow.protocol.OFBadMatchCode;
import org.projectfloodlight.openflow.protocol.match.MatchFields;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.error.BadActionException;
import org.uno.oneswitch.error.BadMatchException;
import org.uno.oneswitch.error.OpenFlowException;
import org.uno.oneswitch.model.Action;
import org.uno.oneswitch.model.Bucket;
import org.uno.oneswitch.model.Instruction;
import org.uno.oneswitch.model.PortNumbers;
import org.uno.oneswitch.model.VirtualGroup;
import org.uno.oneswitch.model.VirtualRule;

/**
 * The one check of virtual rules, groups and packet-out actions before they are translated: what a
 * virtual switch cannot honour is refused here, with the OpenFlow error an Open vSwitch bridge would
 * give, whoever asks (a controller's request, the state file). The codecs check the protocol only;
 * what depends on other rules (groups and meters that exist, action sets, meters on one switch) is
 * checked by the services that know them. Pure.
 */
public final class RuleValidator {
    private RuleValidator() {
    }

    /** Refuses an in_port that cannot be a virtual port, in_phy_port, and actions {@link #actions} refuses. */
    public static void rule(VirtualRule rule) throws OpenFlowException {
        Optional<OFPort> in = rule.match().inPort();
        if (in.isPresent() && !isDataPort(in.get())) {
            throw new BadMatchException(OFBadMatchCode.BAD_VALUE, "in_port " + in.get() + " is not a port of this switch");
        }
        if (rule.match().has(MatchFields.IN_PHY_PORT)) {
            throw new BadMatchException(OFBadMatchCode.BAD_FIELD, "in_phy_port is not supported");
        }
        for (Instruction ins : rule.instructions()) {
            actions(Instruction.actionsOf(ins));
        }
    }

    /** Refuses buckets with actions {@link #actions} refuses. */
    public static void group(VirtualGroup g) throws OpenFlowException {
        for (Bucket b : g.buckets()) {
            actions(b.actions());
        }
    }

    /**
     * Refuses the outputs Open vSwitch refuses ({@link PortNumbers#isOutput}): rules and groups restored
     * from the state file did not pass the codec. TABLE in a rule runs the pipeline again, as there.
     */
    public static void actions(List<Action> actions) throws BadActionException {
        for (Action a : actions) {
            if (a instanceof Action.Output o && !PortNumbers.isOutput(o.port())) {
                throw new BadActionException(OFBadActionCode.BAD_OUT_PORT, "output to " + o.port()
                        + " is not supported by the virtual switch");
            }
        }
    }

    /** A port number that can be a virtual port: 1..OFPP_MAX-1, and LOCAL (the host bridge's, see PortService). */
    static boolean isDataPort(OFPort port) {
        int n = port.getPortNumber();
        return n != 0 && Integer.compareUnsigned(n, OFPort.MAX.getPortNumber()) < 0 || port.equals(OFPort.LOCAL);
    }
}
