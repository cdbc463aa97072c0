package org.uno.oneswitch.translate;

import java.util.List;

import org.projectfloodlight.openflow.protocol.match.MatchFields;
import org.projectfloodlight.openflow.types.OFPort;
import org.uno.oneswitch.model.Action;

/**
 * How OneSwitch lays out the physical switches' tables, priorities, tag values and group ids.
 *
 * <ul>
 *   <li>Physical table 0 is OneSwitch's dispatch table: packets arriving over a PCIe link are
 *       delivered by their flow-id tag; packets of virtual ports go to table 1; anything else is
 *       dropped. Virtual table {@code t} is physical table {@code t + 1}, so link arrivals never
 *       meet a virtual rule and the tag values never meet a tenant's VLANs.</li>
 *   <li>Flow-id tags are {@link #FIRST_TAG}..{@link #LAST_TAG}, carried on a PCIe link as an MPLS
 *       label (see {@link FlowIdHeaders}); drain markers are 802.1ad VLAN ids from
 *       {@link #MARKER_BASE}, one per switch.</li>
 *   <li>Group ids from {@link #PORT_GROUP_BASE} up are OneSwitch's: port groups, the flood group,
 *       then tag groups (one per tag on each sending switch); a controller's group with such an id
 *       gets another id on the switches.</li>
 * </ul>
 */
public final class Layout {
    /** OneSwitch's own first table. */
    public static final int DISPATCH_TABLE = 0;
    /** Dispatch priorities: drain markers, packets of virtual ports, anything else (dropped). */
    public static final int TAG_PRIORITY = 300;
    public static final int PIPELINE_PRIORITY = 100;
    public static final int DROP_PRIORITY = 0;
    /** The TPID of drain markers (802.1ad service tag). */
    public static final int TAG_TPID = 0x88a8;
    /** A tag is its MPLS label (see {@code FlowIdHeaders}), and labels 0-15 are MPLS's own. */
    public static final int FIRST_TAG = 16;
    public static final int LAST_TAG = 0xfffff;
    /** Drain marker of switch number i (topology order) is this plus i. */
    public static final int MARKER_BASE = 4064;
    public static final int MAX_SWITCHES = 4094 - MARKER_BASE + 1;
    /** Tag group of tag t on a switch has id TAG_GROUP_BASE + t (below OFPG_MAX for every tag). */
    public static final long TAG_GROUP_BASE = 0xffe30000L;
    /**
     * Port groups (see {@link #portGroup}): outputs in action sets become groups (see {@link Localizer}).
     */
    public static final long PORT_GROUP_BASE = 0xffe00000L;
    /**
     * The id of the port group of {@code output}: PORT_GROUP_BASE + the port's low 16 bits (IN_PORT
     * included), and for CONTROLLER PORT_GROUP_BASE + 0x10000 + its max_len.
     */
    public static long portGroup(Action.Output output) {
        if (output.port().equals(OFPort.CONTROLLER)) {
            return PORT_GROUP_BASE + 0x10000 + (output.maxLen() & 0xffff);
        }
        return PORT_GROUP_BASE + (output.port().getPortNumber() & 0xffff);
    }

    /**
     * The flood group of a switch: FLOOD or ALL in an action set or a group bucket, where Open
     * vSwitch executes one output, becomes this group (see {@link TagRoutes#floodGroup}).
     */
    public static final long FLOOD_GROUP = PORT_GROUP_BASE + 0x20000;

    /**
     * OneSwitch's NORMAL (see {@link NormalPipeline}): an output to NORMAL is this group, whose one
     * bucket resubmits to {@link #NORMAL_TABLE}, on the switch where the packet entered.
     */
    public static final long NORMAL_GROUP = PORT_GROUP_BASE + (OFPort.NORMAL.getPortNumber() & 0xffff);
    /**
     * NORMAL's tables: whether a frame is sent to its own source address, its entry (per ingress
     * port), learning, the learned sources, their check, the MACs, the output.
     */
    public static final int NORMAL_SELF_TABLE = 244;
    public static final int NORMAL_TABLE = 245;
    public static final int NORMAL_LEARN_TABLE = 246;
    public static final int NORMAL_SEEN_TABLE = 247;
    public static final int NORMAL_CHECK_TABLE = 248;
    public static final int MAC_TABLE = 249;
    public static final int NORMAL_OUT_TABLE = 250;
    /**
     * The OXM headers of NORMAL's registers (see {@link NormalPipeline}): reg2 the port a source
     * was last announced on, reg3 the ingress port's code, reg4 the port a destination was learned
     * on; reg1 counts the leading nibbles the source and destination addresses share.
     */
    public static final long OXM_REG2 = 0x00010404L;
    public static final long OXM_REG3 = 0x00010604L;
    public static final long OXM_REG4 = 0x00010804L;
    public static final long NXM_VLAN_TCI = 0x00000802L;
    public static final long NXM_ETH_DST = 0x00000206L;
    public static final long NXM_ETH_SRC = 0x00000406L;
    /**
     * The Ethertype of NORMAL's notices on a PCIe link (MPLS multicast: flow ids always travel as
     * MPLS unicast), whose label is the virtual port a MAC address was learned on.
     */
    public static final int NOTICE_ETHERTYPE = 0x8848;

    /**
     * The pipeline home's table where output:IN_PORT goes (see {@link HomedPorts}): a packet of a homed
     * port is sent back to it, anything else output to IN_PORT.
     */
    public static final int IN_PORT_TABLE = 243;
    /**
     * The register that is 1 while the pipeline home sends a packet back to the homed port it came
     * from (output:IN_PORT), which the guard against outputs to the in_port lets through (see {@link HomedPorts}).
     */
    public static final MatchFields IN_PORT_REGISTER = MatchFields.REG0;

    /**
     * The register that carries, across the tables of one switch, whether the action set holds a
     * group (see {@code ActionSetFlag}); never shown to controllers.
     */
    public static final MatchFields ACTION_SET_REGISTER = MatchFields.REG7;

    /**
     * The sending switch's egress table: a tag group's bucket puts the tag in {@link #TAG_REGISTER}
     * and the PCIe link in {@link #LINK_REGISTER} and resubmits here, where the packet gets its
     * flow-id header by Ethertype (see {@link Infrastructure}).
     */
    public static final int EGRESS_TABLE = 252;
    /**
     * A table whose one entry clears the action set: the egress table's clone of a frame it encapsulates
     * resubmits here last, so that Open vSwitch does not execute the action set on the clone (see
     * {@code FlowIdHeaders}).
     */
    public static final int CLEAR_TABLE = 251;
    /** The receiving switch's table that pops an MPLS flow-id label, by the Ethertype code in its TC bits. */
    public static final int POP_TABLE = 253;
    public static final MatchFields TAG_REGISTER = MatchFields.REG6;
    public static final MatchFields LINK_REGISTER = MatchFields.REG5;
    /**
     * The Ethertypes (as Open vSwitch sees them, after the VLAN headers it parses) whose packets
     * carry their flow id as an MPLS label pushed after their VLAN headers; a label's TC bits hold
     * the index here, so that the far side pops it back to that Ethertype. Packets of any other
     * Ethertype travel whole inside an MPLS label with TC {@link #ENCAP_CODE}.
     */
    public static final List<Integer> MPLS_ETHERTYPES = List.of(0x0800, 0x86dd, 0x0806, 0x8847, 0x8848, 0x8100,
            0x88a8);
    /** OXM headers of the fields the flow-id entries' Nicira move actions copy between (NXM_NX_REG6, ...). */
    public static final long OXM_REG6 = 0x00010c04L;
    public static final long OXM_REG5 = 0x00010a04L;
    public static final long OXM_MPLS_LABEL = 0x80004404L;
    public static final long OXM_TUNNEL_ID = 0x80004c08L;
    /** The TC of a label that carries a whole frame (encap(mpls)) rather than one pushed after its VLAN headers. */
    public static final int ENCAP_CODE = 7;
    /** Dispatch priority of MPLS-labelled link arrivals: above the drain markers', so a tenant VLAN id never matters. */
    public static final int LABEL_PRIORITY = TAG_PRIORITY + 1;
    /** Dispatch priority of a link's encapsulated arrivals, which are decapsulated and looked up again. */
    public static final int ENCAP_PRIORITY = LABEL_PRIORITY + 1;
    /**
     * Dispatch priority of decapsulated arrivals, matched by the link and their label (kept in the
     * tunnel id, which only a decapsulation sets on a link's packets).
     */
    public static final int DECAPPED_PRIORITY = ENCAP_PRIORITY + 1;

    /**
     * The lowest group id OneSwitch keeps for itself; a virtual group with such an id has its copies
     * under another (see {@code core/PhysicalGroupIds}).
     */
    public static final long FIRST_RESERVED_GROUP = PORT_GROUP_BASE;
    /** A group id OneSwitch never gives a group: a bucket watching a group that does not exist watches this. */
    public static final long ABSENT_GROUP = 0xffffff00L;

    private Layout() {
    }

    /** The physical table of virtual table {@code virtualTable}. */
    public static int physicalTable(int virtualTable) {
        return virtualTable + 1;
    }

    /** The virtual table of physical table {@code physicalTable} (-1 for OneSwitch's own tables). */
    public static int virtualTable(int physicalTable) {
        return physicalTable >= 1 ? physicalTable - 1 : -1;
    }

    /** The tag whose tag group has id {@code groupId}, or 0. */
    public static int tagOfGroup(long groupId) {
        return groupId >= TAG_GROUP_BASE && groupId <= TAG_GROUP_BASE + LAST_TAG ? (int) (groupId - TAG_GROUP_BASE) : 0;
    }
}
