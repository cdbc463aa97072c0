"""Fixed paths across the PCIe link, installed with ovs-ofctl: a VM <-> wire path, or a one-way chain of ports.

Checks a platform without any controller: the host switch pushes an 802.1ad
flow-id tag toward the sNIC and pops the sNIC's tag on the way back, as
OneSwitch's translated rules do. Only for bridges no controller manages.
"""
from __future__ import annotations

from uno_platform import system
from uno_platform.base import Platform

TAG_UP, TAG_DOWN = 100, 200
OFPVID_PRESENT = 0x1000


def ofctl(platform: Platform, switch_id: str, verb: str, *args: str) -> str:
    """Run `ovs-ofctl -O OpenFlow13 <verb> <switch> <args>` against one physical switch."""
    return system.run(["ovs-ofctl", "-O", "OpenFlow13", verb, platform.switch(switch_id)["openflow"], *args])


def install_tagged_path(platform: Platform, vm_port: str, wire_port: str) -> None:
    """Connect `vm_port` (host) and `wire_port` (on its sNIC) both ways: TAG_UP toward the sNIC, TAG_DOWN back."""
    wire_switch = next(sw["id"] for sw in platform.description["switches"]
                       if any(p["name"] == wire_port for p in sw["ports"]))
    install_chain(platform, [("host", vm_port), (wire_switch, wire_port)], first_tag=TAG_UP)
    install_chain(platform, [(wire_switch, wire_port), ("host", vm_port)], first_tag=TAG_DOWN)


def flow_packets(platform: Platform, switch_id: str) -> dict[str, int]:
    """n_packets per flow, keyed by the flow's match as ovs-ofctl dump-flows prints it."""
    counts = {}
    for line in ofctl(platform, switch_id, "dump-flows").splitlines()[1:]:
        head = line.split(" actions=")[0]
        counts[head.rsplit(", ", 1)[-1]] = int(head.split("n_packets=")[1].split(",")[0])
    return counts


def install_chain(platform: Platform, hops: list[tuple[str, str]], *, first_tag: int = 300) -> int:
    """Steer what enters at port hops[0] through each following (switch, port) in turn, one way: an NF in
    single-port mode sends back out of its port what it received there, and the rule for that port takes
    it to the next hop. A hop on the other side of a PCIe link is reached with an 802.1ad tag of its own
    (first_tag, first_tag + 1, ...). Returns the number of link crossings per packet."""
    def ofport(switch_id: str, port: str) -> int:  # NF ports are not in the description: ask the switch
        return platform.ovs(switch_id).ofport(port)

    crossings = 0
    for k, ((sw_a, port_a), (sw_b, port_b)) in enumerate(zip(hops, hops[1:], strict=False)):
        a, b = ofport(sw_a, port_a), ofport(sw_b, port_b)
        if sw_a == sw_b:
            ofctl(platform, sw_a, "add-flow", f"in_port={a},actions=output:{b}")
            continue
        crossings += 1
        tag = first_tag + k
        snic = sw_b if sw_a == "host" else sw_a
        link = next(link for link in platform.description["pcie_links"] if link["snic"] == snic)
        out_link, in_link = ((link["host_port"], link["snic_port"]) if sw_a == "host"
                             else (link["snic_port"], link["host_port"]))
        ofctl(platform, sw_a, "add-flow", f"in_port={a},actions=push_vlan:0x88a8,"
              f"set_field:{OFPVID_PRESENT | tag}->vlan_vid,output:{ofport(sw_a, out_link)}")
        ofctl(platform, sw_b, "add-flow", f"in_port={ofport(sw_b, in_link)},dl_vlan={tag},"
              f"actions=pop_vlan,output:{b}")
    return crossings
