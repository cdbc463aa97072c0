"""BlueField-2/3 in DPU mode: the host's switch, and each DPU as a remote sNIC (its own Open vSwitch, uno-snicd).

Names and settings, and where they are documented:
- Representors on the Arm: uplink p<port>, host PF pf<port>hpf, host VF pf<port>vf<n> -- NVIDIA DOCA "DPU Kernel
  Representors Model" (https://docs.nvidia.com/doca/sdk/DPU+Kernel+Representors+Model/index.html).
- SF representors en3f<pf>pf<pf>sf<sfnum> and SF netdevs enp3s0f<pf>s<sfnum> (the Arm's PF 0 is PCI 03:00.0; the
  netdev's name comes from udev, so nf-ports.json is checked against `mlnx-sf -a show` on the board); the BFB's own
  SF is sfnum 0 (en3f0pf0sf0 in the default bridge ovsbr1,
  which also holds p0 and pf0hpf) and virtio-net emulation takes sfnums >= 1000 -- BlueField BSP "Virtual Switch on
  DPU" (ovs-vsctl show) and "VirtIO-net Emulated Devices" ("the default name is in the format of
  <prefix><pf_num><sf_num>, for example en3f0pf0sf1001"), docs.nvidia.com/networking/display/bluefielddpuosv396.
- `ovs-vsctl set Open_vSwitch . other_config:hw-offload=true` and a restart of openvswitch-switch -- BlueField BSP
  "Virtual Switch on BlueField", section "Enabling OVS HW Offloading".
- tmfifo_net0 with 192.168.100.1 on the host and .2 on the Arm, one rshim device and host interface tmfifo_net<N>
  per DPU -- BlueField BSP "SoC Management Interface (RShim)", "Host-side Interface Configuration".
- The host's PF: named by systemd from its slot and phys_port_name (en s<slot> f<function> n<phys_port_name>,
  systemd.net-naming-scheme(7)), so it varies; UNO_HOST_PF<i> sets it, ens1f0np0 is the default for the first
  (when rendering too: the platform description names the PFs).
- The host's Open vSwitch (the distribution's openvswitch-switch) runs in /var/run/openvswitch, its control
  socket named ovs-vswitchd.<pid>.ctl (ovs-appctl(8), "-t"); OneSwitch and the agent find it from the pidfile.
"""
from __future__ import annotations

import json
import os
import shlex
from ipaddress import ip_interface

from uno_platform import remote
from uno_platform.cgroups import SideCgroup
from uno_platform.errors import SpecError
from uno_platform.hardware.common import (
    ETC,
    OVS_SERVICE,
    RESTART_OVS,
    bridge_line,
    controller_lines,
    port_line,
    readme,
    settings_line,
    shell_script,
)
from uno_platform.spec import Names, TestbedSpec, datapath_id, mgmt_links

UPLINKS = ("p0", "p1")               # a BlueField-2/3 has at most two Ethernet ports
PCIE_PORT = "pf0hpf"                 # the host PF's representor: the sNIC's end of the PCIe link
NF_SFNUMS = range(1, 9)              # SFs for NFs on the Arm: above the BFB's sfnum 0, below virtio-net's 1000
HOST_PF_DEFAULT = "ens1f0np0"
HOST_OVS_RUNDIR = "/var/run/openvswitch"   # the distribution's Open vSwitch on the host
DESCRIPTION = "/etc/uno/platform.json"     # where the host's units find the description (deploy/systemd)
PYTHON = "/usr/bin/python3"
LIB = "/opt/uno/lib/python"          # uno_platform, uno_snicd, uno_nfs (as the remote profile's sNIC disk has them)
BIN = "/opt/uno/bin"                 # NF binaries
HOST_MGMT_PORT = "tmfifo_net{i}"      # the host's rshim interface of the i-th DPU
NETWORK_FILE = "05-uno-{ifname}.network"  # sorts before netplan's 10-netplan-*.network, so it is the one used


def sf_representor(sfnum: int) -> str:
    return f"en3f0pf0sf{sfnum}"


def sf_netdev(sfnum: int) -> str:
    return f"enp3s0f0s{sfnum}"


def render(spec: TestbedSpec) -> dict[str, str]:
    _check(spec)
    names = Names(spec.prefix)
    pfs = _host_pfs(spec)
    files = {"host/ovs-setup.sh": _host_script(spec, names),
             "host/platform.json": json.dumps(_description(spec, names, pfs), indent=2) + "\n"}
    placements = {"host/ovs-setup.sh": ("the host; run once as root (UNO_HOST_PF<i>: the host PF of DPU i)",
                                        "the host's bridge, with each DPU's PF as its end of the PCIe link"),
                  "host/platform.json": (f"the host: {DESCRIPTION}", "the platform description OneSwitch and the "
                                         f"agent run with (host PFs {', '.join(pfs)})")}
    for i, (host_ip, snic_ip) in enumerate(mgmt_links(spec)):
        sw = names.snic(i)
        host_port = HOST_MGMT_PORT.format(i=i)
        host_network = f"host/{NETWORK_FILE.format(ifname=host_port)}"
        snic_network = f"{sw}/{NETWORK_FILE.format(ifname=remote.MGMT_SNIC_PORT)}"
        files[host_network] = _network(host_port, host_ip)
        files[snic_network] = _network(remote.MGMT_SNIC_PORT, snic_ip)
        files[f"{sw}/ovs-setup.sh"] = _snic_script(spec, names, i, host_ip, snic_ip)
        files[f"{sw}/uno-snicd.service"] = _daemon_unit(names, sw, snic_ip)
        files[f"{sw}/{remote.NF_PORT_POOL}"] = json.dumps(
            [{"representor": sf_representor(n), "netdev": sf_netdev(n)} for n in NF_SFNUMS], indent=1) + "\n"
        placements.update({
            host_network: ("the host: /etc/systemd/network/", f"the host's end of {sw}'s management link (rshim)"),
            snic_network: (f"{sw}'s Arm: /etc/systemd/network/", "the DPU's end of its management link"),
            f"{sw}/ovs-setup.sh": (f"{sw}'s Arm; run once as root", f"{sw}'s bridge: uplinks, {PCIE_PORT}, "
                                   "offload, ovsdb over SSL, controller"),
            f"{sw}/{remote.NF_PORT_POOL}": (f"{sw}'s Arm: {ETC}/", "the SFs uno-snicd gives NFs as ports (each "
                                            "representor and netdev renamed to the agent's port while in use)"),
            f"{sw}/uno-snicd.service": (f"{sw}'s Arm: /etc/systemd/system/; systemctl enable --now uno-snicd",
                                        "the sNIC daemon the host's agent drives"),
        })
    files["README.txt"] = readme("UNO on BlueField DPUs (DPU mode)", _notes(spec), placements)
    return files


def _check(spec: TestbedSpec) -> None:
    if spec.datapath != "veth":
        raise SpecError("the bluefield profile renders the kernel datapath (OVS-kernel with hw-offload) only: "
                        "use --datapath veth")
    if spec.wire_ports > len(UPLINKS):
        raise SpecError(f"a BlueField has at most {len(UPLINKS)} Ethernet ports, not --wire-ports {spec.wire_ports}")
    if spec.controller is not None and not spec.controller.startswith("ssl:"):
        raise SpecError("with BlueField DPUs the bridges reach the controller over ssl: only")


def _host_pfs(spec: TestbedSpec) -> list[str]:
    """The host PF of each DPU, as host/ovs-setup.sh will take them (UNO_HOST_PF<i>; the first has a default)."""
    pfs = []
    for i in range(spec.snics):
        pf = os.environ.get(f"UNO_HOST_PF{i}", HOST_PF_DEFAULT if i == 0 else "")
        if not pf:
            raise SpecError(f"set UNO_HOST_PF{i} to the host PF of DPU {i}: the platform description names it")
        pfs.append(pf)
    return pfs


def _description(spec: TestbedSpec, names: Names, pfs: list[str]) -> dict:
    """The platform description of this server (uno-platform/1, profile remote): the host's switch is the
    distribution's Open vSwitch in the host's own namespaces, each DPU a remote sNIC reached over its management
    link; the file names are where `unoctl pki create` says to install the keys and certificates."""
    host_bridge, links = names.switch_bridge(names.host), list(mgmt_links(spec))
    host = {"id": names.host, "role": "host", "datapath_id": datapath_id(names.host), "bridge": host_bridge,
            "netns": None, "rundir": HOST_OVS_RUNDIR, "ovsdb": f"unix:{HOST_OVS_RUNDIR}/db.sock",
            "openflow": f"unix:{HOST_OVS_RUNDIR}/{host_bridge}.mgmt",
            "appctl": f"{HOST_OVS_RUNDIR}/ovs-vswitchd.ctl", "cgroup": _cgroup(names, names.host, None),
            "ports": [{"name": pf, "ofport": 1 + i, "kind": "pcie",
                       "peer": {"switch": names.snic(i), "port": PCIE_PORT}} for i, pf in enumerate(pfs)],
            "ssl_certificate": f"{ETC}/host-cert.pem"}
    switches, pcie = [host], []
    for i, (host_ip, snic_ip) in enumerate(links):
        sw = names.snic(i)
        address = ip_interface(snic_ip).ip
        ports = [{"name": PCIE_PORT, "ofport": 1, "kind": "pcie", "peer": {"switch": names.host, "port": pfs[i]}}]
        ports += [{"name": UPLINKS[k], "ofport": 2 + k, "kind": "wire"} for k in range(spec.wire_ports)]
        switches.append({
            "id": sw, "role": "snic", "datapath_id": datapath_id(sw), "bridge": names.switch_bridge(sw),
            "netns": None, "rundir": remote.SNIC_OVS_RUNDIR, "ovsdb": f"ssl:{address}:{remote.OVSDB_PORT}",
            "cgroup": _cgroup(names, sw, spec.snic_cores), "ports": ports, "model": "bluefield", "nf_capable": True,
            "ssl_certificate": f"{ETC}/{sw}-cert.pem",
            "machine": {"host_ip": host_ip, "snic_ip": snic_ip, "host_ifname": HOST_MGMT_PORT.format(i=i),
                        "snic_ifname": remote.MGMT_SNIC_PORT, "daemon": f"{address}:{remote.DAEMON_PORT}",
                        "daemon_name": sw}})
        pcie.append({"host_port": pfs[i], "snic": sw, "snic_port": PCIE_PORT, "gbps": spec.pcie_gbps,
                     "mtu": spec.pcie_mtu})
    return {"schema": "uno-platform/1", "profile": remote.RemotePlatform.profile, "prefix": spec.prefix,
            "state_dir": f"/run/uno/{spec.prefix}",
            "spec": {"pcie_gbps": spec.pcie_gbps, "snic_cores": spec.snic_cores, "snics": spec.snics,
                     "wire_ports": spec.wire_ports, "vms": 0, "pcie_mtu": spec.pcie_mtu, "datapath": "veth",
                     "mgmt_subnet": spec.mgmt_subnet, "snic_model": "bluefield"},
            "switches": switches, "pcie_links": pcie, "vms": [],
            "ssl": {"pki_dir": ETC, "private_key": f"{ETC}/{remote.ONESWITCH_NAME}-privkey.pem",
                    "certificate": f"{ETC}/{remote.ONESWITCH_NAME}-cert.pem", "ca_cert": f"{ETC}/switchca.pem"},
            "remote": {"private_key": f"{ETC}/{remote.AGENT_NAME}-privkey.pem",
                       "certificate": f"{ETC}/{remote.AGENT_NAME}-cert.pem", "ca_cert": f"{ETC}/switchca.pem"}}


def _cgroup(names: Names, sw: str, cores: float | None) -> dict:
    cgroup = SideCgroup.for_name(names.cgroup(sw))
    return {"cpu": str(cgroup.cpu), "cpuacct": str(cgroup.cpuacct), "cores": cores}


def _host_script(spec: TestbedSpec, names: Names) -> str:
    bridge = names.switch_bridge(names.host)
    body = [f'PF0="${{UNO_HOST_PF0:-{HOST_PF_DEFAULT}}}"']
    body += [f'PF{i}="${{UNO_HOST_PF{i}:?set UNO_HOST_PF{i} to the host PF of {names.snic(i)}}}"'
             for i in range(1, spec.snics)]
    body += ["", settings_line(), bridge_line(bridge, names.host)]
    body += [port_line(bridge, f'"$PF{i}"', ofport=1 + i, mtu=spec.pcie_mtu) for i in range(spec.snics)]
    if spec.controller:
        body += controller_lines([bridge], spec.controller, names.host)
    return shell_script("UNO's host switch with BlueField DPUs in DPU mode; run as root on the host.", body)


def _snic_script(spec: TestbedSpec, names: Names, i: int, host_ip: str, snic_ip: str) -> str:
    sw = names.snic(i)
    bridge = names.switch_bridge(sw)
    body = [settings_line(**{"hw-offload": "true"}), RESTART_OVS, bridge_line(bridge, sw),
            port_line(bridge, PCIE_PORT, ofport=1, mtu=spec.pcie_mtu)]
    body += [port_line(bridge, UPLINKS[k], ofport=2 + k) for k in range(spec.wire_ports)]
    # The NF SFs' representors are not added here: uno-snicd adds one, renamed to the agent's port, per NF.
    body += ["# ovsdb-server listens on the management address with the keys set-ssl names (ovs-ctl starts it with",
             "# the manager and SSL settings of its database); the bridge reaches OneSwitch on the host's address.",
             f"ovs-vsctl set-manager pssl:{remote.OVSDB_PORT}:{ip_interface(snic_ip).ip}",
             *controller_lines([bridge], f"ssl:{ip_interface(host_ip).ip}:{remote.CONTROLLER_RELAY_PORT}", sw)]
    return shell_script(f"UNO's {sw} on a BlueField DPU in DPU mode; run as root on its Arm cores.", body)


def _daemon_unit(names: Names, sw: str, snic_ip: str) -> str:
    cgroup = SideCgroup.for_name(names.cgroup(sw))
    argv = remote.daemon_argv(PYTHON, names, sw, snic_ip, cgroup, etc=ETC, bin_dir=BIN)
    return f"""[Unit]
Description=UNO sNIC daemon of {sw} (uno-snicd)
Wants=network-online.target {OVS_SERVICE}.service
After=network-online.target {OVS_SERVICE}.service
# Never give up restarting: the host's agent reaches {sw} through this daemon only.
StartLimitIntervalSec=0

[Service]
Environment=PYTHONPATH={LIB}
ExecStartPre=/bin/mkdir -p {cgroup.cpu} {cgroup.cpuacct}
ExecStart={shlex.join(argv)}
Restart=always
RestartSec={remote.DAEMON_RESTART_S}s
# A restart keeps the NFs running: the daemon knows them again from its run directory.
KillMode=process
RuntimeDirectory={remote.SNICD_RUN_DIR.removeprefix("/run/")}
RuntimeDirectoryMode=0700
RuntimeDirectoryPreserve=yes
# Hardening that leaves what the daemon does (SFs renamed as NF ports, NF processes, cgroup writes, ovs-vsctl)
# working.
ProtectSystem=strict
ReadWritePaths={remote.SNIC_OVS_RUNDIR}
ProtectHome=yes
PrivateTmp=yes
NoNewPrivileges=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectClock=yes
RestrictSUIDSGID=yes
LockPersonality=yes

[Install]
WantedBy=multi-user.target
"""


def _network(ifname: str, cidr: str) -> str:
    return f"[Match]\nName={ifname}\n\n[Network]\nAddress={cidr}\n"


def _notes(spec: TestbedSpec) -> list[str]:
    sfs = f"{sf_representor(NF_SFNUMS[0])}..{sf_representor(NF_SFNUMS[-1])}"
    return [
        "Each DPU is a remote sNIC, as the `remote` testbed profile emulates it. Before running anything:",
        "- the DPUs are in DPU mode (the Arm owns the embedded switch);",
        f"- keys and certificates: `unoctl pki create --snics {spec.snics}` prints which file goes where "
        "(/etc/uno on the host and on each DPU);",
        f"- on each DPU: uno_platform, uno_snicd and uno_nfs under {LIB}, the NF binaries under {BIN};",
        "- uno-snicd accounts NFs in cgroup v1 cpu/cpuacct: boot the Arm with systemd.unified_cgroup_hierarchy=0;",
        f"- NF ports: SFs with sfnums {NF_SFNUMS[0]}..{NF_SFNUMS[-1]} on PF 0 (representors {sfs}), made and",
        "  activated as the DOCA BlueField Scalable Function User Guide describes, not on any bridge; sfnum 0 stays",
        f"  the BFB's own; check each SF's netdev name in {remote.NF_PORT_POOL} against `mlnx-sf -a show`;",
        f"- OneSwitch's southbound (or a relay to it) listens with SSL on each host management address, port "
        f"{remote.CONTROLLER_RELAY_PORT};",
        f"- the agent reaches each DPU's daemon on its management address, port {remote.DAEMON_PORT}, as "
        f"{remote.AGENT_NAME}.",
        f"The management links are the /30s of {spec.mgmt_subnet}, one per DPU (host .1, DPU .2 in the first).",
    ]
