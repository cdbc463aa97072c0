"""Netronome Agilio CX with the flower (OVS-TC) firmware: one Open vSwitch on the host, the sNIC switch's rules
offloaded to the card through TC; the card's flow processors run no NFs, so there is no sNIC daemon.

Each sNIC i is a card (its PF netdev: UNO_NFP_PF<i>); its bridge holds the card's physical port representors (the
wire) and the representor of VF 0; the VF's own netdev sits on the host's bridge, so VF 0 is the PCIe link.

Names and settings, and where they are documented (Netronome "Agilio OVS-TC" user guide, help.netronome.com):
- "SmartNIC Netdev Interfaces": physical port representors report phys_port_name p<N> (named <PF>np<N>, e.g.
  enp4s0np0), VF representors pf0vf<N> and share the card's phys_switch_id; the VF representors' names are
  generic (eth1), so they are found by those two attributes, as the guide's script does; the PF representor is
  not used with OVS-TC; VF N of a PF is /sys/bus/pci/devices/<PF>/virtfn<N>. The PF's name varies with the slot
  (the guide's examples: p5p1, p6p1). The driver's names: nfp_port_get_phys_port_name() in
  drivers/net/ethernet/netronome/nfp/nfp_port.c ("p%d", "pf%d", "pf%dvf%d").
  (nfp_p0 and nfp_v0.<N> are the proprietary Agilio OVS product's names, not the upstream driver's.)
- "PF Link Configuration": the PF netdev is the representors' lower device and must be up, at the largest MTU
  the firmware supports so that fallback packets fit.
- "Configuring Open vSwitch Hardware Offload": `ovs-vsctl set Open_vSwitch . other_config:hw-offload=true
  other_config:tc-policy=none`, then a restart of openvswitch-switch (Ubuntu).
"""
from __future__ import annotations

from uno_platform.errors import SpecError
from uno_platform.hardware.common import (
    RESTART_OVS,
    bridge_line,
    controller_lines,
    port_line,
    readme,
    settings_line,
    shell_script,
)
from uno_platform.spec import Names, TestbedSpec

MAX_WIRE_PORTS = 2                   # Agilio CX: one or two Ethernet ports (unsplit)
PCIE_VF = 0                          # the VF that carries the PCIe link
PF_DEFAULT = "p5p1"

SHELL_FUNCTIONS = r"""# The netdev with phys_port_name $2 on the card whose PF netdev is $1 (the card's phys_switch_id,
# read from a physical port representor, tells its representors from another card's).
nfp_representor() {
    local dev switch_id=""
    for dev in /sys/class/net/"$1"/device/net/*; do
        switch_id=$(cat "$dev/phys_switch_id" 2>/dev/null) && break
    done
    if [ -n "$switch_id" ]; then
        for dev in /sys/class/net/*; do
            if [ "$(cat "$dev/phys_switch_id" 2>/dev/null)" = "$switch_id" ] &&
               [ "$(cat "$dev/phys_port_name" 2>/dev/null)" = "$2" ]; then
                basename "$dev"
                return
            fi
        done
    fi
    echo "ovs-setup.sh: no netdev with phys_port_name $2 on the card of $1" >&2
    return 1
}

# The host netdev of VF $2 of the PF netdev $1.
nfp_vf() {
    ls /sys/class/net/"$1"/device/virtfn"$2"/net/
}

# The PF netdev $1 up at the largest MTU its firmware takes (it is the representors' lower device: fallback
# packets must fit), and at least one VF.
nfp_pcie_link() {
    local numvfs=/sys/class/net/"$1"/device/sriov_numvfs
    ip link set "$1" mtu "$(ip -d link show "$1" | sed -n 's/.* maxmtu \([0-9]*\).*/\1/p')" up
    [ "$(cat "$numvfs")" -ge 1 ] || echo 1 > "$numvfs"
    udevadm settle
}
"""


def render(spec: TestbedSpec) -> dict[str, str]:
    _check(spec)
    names = Names(spec.prefix)
    placements = {"host/ovs-setup.sh": ("the host; run once as root (UNO_NFP_PF<i>: the PF netdev of card i)",
                                        "the host's and each card's bridge on the host's Open vSwitch, TC offload")}
    return {"host/ovs-setup.sh": _host_script(spec, names),
            "README.txt": readme("UNO on Netronome Agilio SmartNICs (OVS-TC)", _notes(spec), placements)}


def _check(spec: TestbedSpec) -> None:
    if spec.datapath != "veth":
        raise SpecError("the netronome profile offloads the kernel datapath through TC: use --datapath veth")
    if spec.wire_ports > MAX_WIRE_PORTS:
        raise SpecError(f"an Agilio CX has at most {MAX_WIRE_PORTS} Ethernet ports, not --wire-ports "
                        f"{spec.wire_ports}")


def _host_script(spec: TestbedSpec, names: Names) -> str:
    host_bridge = names.switch_bridge(names.host)
    body = [f'PF0="${{UNO_NFP_PF0:-{PF_DEFAULT}}}"']
    body += [f'PF{i}="${{UNO_NFP_PF{i}:?set UNO_NFP_PF{i} to the PF netdev of the card of {names.snic(i)}}}"'
             for i in range(1, spec.snics)]
    body += ["", SHELL_FUNCTIONS, settings_line(**{"hw-offload": "true", "tc-policy": "none"}), RESTART_OVS, ""]
    for i in range(spec.snics):
        sw = names.snic(i)
        bridge = names.switch_bridge(sw)
        body += [f"# {sw}: the card of $PF{i}", f'nfp_pcie_link "$PF{i}"',
                 f'HOST_PCIE{i}="$(nfp_vf "$PF{i}" {PCIE_VF})"',
                 f'SNIC{i}_PCIE="$(nfp_representor "$PF{i}" pf0vf{PCIE_VF})"']
        body += [f'SNIC{i}_WIRE{k}="$(nfp_representor "$PF{i}" p{k})"' for k in range(spec.wire_ports)]
        body += [bridge_line(bridge, sw), port_line(bridge, f'"$SNIC{i}_PCIE"', ofport=1, mtu=spec.pcie_mtu)]
        body += [port_line(bridge, f'"$SNIC{i}_WIRE{k}"', ofport=2 + k) for k in range(spec.wire_ports)]
        body.append("")
    body += [f"# {names.host}", bridge_line(host_bridge, names.host)]
    body += [port_line(host_bridge, f'"$HOST_PCIE{i}"', ofport=1 + i, mtu=spec.pcie_mtu) for i in range(spec.snics)]
    if spec.controller:
        bridges = [names.switch_bridge(sw) for sw in (names.host, *(names.snic(i) for i in range(spec.snics)))]
        body += controller_lines(bridges, spec.controller, names.host)   # one OVS: the host's certificate
    return shell_script("UNO on Netronome Agilio SmartNICs with OVS-TC offload; run as root on the host.", body)


def _notes(spec: TestbedSpec) -> list[str]:
    return [
        "NFs are pinned to the host: the card's flow processors offload switching only (no NF runs on the",
        "sNIC, and there is no sNIC daemon). The platform description's sNIC entries say so (\"nf_capable\":",
        "false, as `--snic-model netronome` writes them): the agent's solver then pins every NF to the host.",
        "Before running host/ovs-setup.sh:",
        "- each card runs the flower (OVS-TC) firmware (the Agilio OVS-TC guide, 'Selecting the TC Offload "
        "Firmware');",
        "- the kernel datapath of Open vSwitch is in use (--datapath veth in the spec; VMs attach to the host's",
        "  bridge as in the emulated platform).",
        f"VF {PCIE_VF} of each card is its PCIe link: its netdev on the host's bridge, its representor on the card's "
        "bridge, whose",
        "rules Open vSwitch offloads through TC (tc-policy=none: in hardware where possible, else in software).",
        "One Open vSwitch holds every bridge: with an ssl: controller they all present the host's certificate.",
    ]
