"""The remote profile: each sNIC is a machine of its own (machine.py), reached from the host over IP only.

Packets still cross the PCIe link (a veth pair, as in the emulated profile). Everything else crosses the
management link (a veth pair standing for BlueField's tmfifo, `tmfifo_net0` on the sNIC) and is authenticated
with certificates from one ovs-pki PKI:
- the sNIC daemon (uno_snicd) answers only the host's agent certificate, and does on the sNIC what the host
  cannot (NF ports and processes, CPU use, NF control and state);
- the sNIC's ovsdb-server listens with SSL on the sNIC's management address;
- the sNIC's bridge connects to the controller with SSL, through a relay on the host's management address.

Building and powering off the machine (machine.py) is the emulation's part and uses the host's view of the
namespaces; once up, the host reaches a remote sNIC through those channels only.
"""
from __future__ import annotations

import json
import logging
import pathlib
import shutil
import ssl
import subprocess
import time

import uno_platform
from uno_platform import losses as drops
from uno_platform import machine, pki, system
from uno_platform.cgroups import SideCgroup, preexec_join
from uno_platform.emulated import EmulatedPlatform, _Builder
from uno_platform.errors import PlatformError, SpecError
from uno_platform.ledger import Ledger
from uno_platform.ovs import OvsInstance
from uno_platform.spec import SNIC_MODELS, Names, TestbedSpec, mgmt_links
from uno_platform.switch_side import SwitchSide, make_veth
from uno_snicd import wire
from uno_snicd.client import RemoteError, SnicClient

log = logging.getLogger(__name__)

AGENT_NAME = "uno-agent"          # the CN of the host's client certificate
ONESWITCH_NAME = "oneswitch"      # the CN of OneSwitch's: the daemon lets it purge the sNIC's cached datapath flows
MGMT_SNIC_PORT = "tmfifo_net0"    # BlueField's name for the sNIC's end of the host link
DAEMON_PORT = 7340
OVSDB_PORT = 6640
CONTROLLER_RELAY_PORT = 6653      # on the host's management address
SNIC_OVS_RUNDIR = "/run/openvswitch"
SNICD_RUN_DIR = "/run/uno-snicd"
DAEMON_TIMEOUT = 10.0
DAEMON_RESTART_S = 0.5            # systemd's RestartSec in deploy/
NF_PORT_POOL = "nf-ports.json"    # the daemon's NF ports made beforehand (uno_platform.port_pool), in its etc
EMULATED_NF_PORTS = 16


def _address(cidr: str) -> str:
    return cidr.split("/")[0]


def daemon_argv(python: str, names: Names, sw: str, snic_ip: str, cgroup: SideCgroup, *, etc: str,
                bin_dir: str) -> list[str]:
    """uno-snicd's command line on sNIC `sw` (its management address `snic_ip`, its keys and NF port pool in `etc`,
    NF binaries in `bin_dir`): what the remote profile runs on its emulated sNICs, and the BlueField render's unit
    on a DPU."""
    installed = pki.Pki(pathlib.Path(etc))     # as `unoctl pki create` says to install them
    return [python, "-m", "uno_snicd", "--listen", f"{_address(snic_ip)}:{DAEMON_PORT}",
            "--certificate", str(installed.certificate(sw)), "--private-key", str(installed.private_key(sw)),
            "--ca-cert", f"{etc}/controllerca.pem", "--client-name", AGENT_NAME,
            "--switch-client-name", ONESWITCH_NAME, "--bridge", names.switch_bridge(sw),
            "--nf-port-prefix", names.nf_port_prefix(),
            "--ovs-rundir", SNIC_OVS_RUNDIR, "--datapath", "veth", "--cgroup-cpu", str(cgroup.cpu),
            "--cgroup-cpuacct", str(cgroup.cpuacct), "--bin-dir", bin_dir, "--run-dir", SNICD_RUN_DIR,
            "--nf-port-pool", f"{etc}/{NF_PORT_POOL}"]


class RemotePlatform(EmulatedPlatform):
    """Host side as in the emulated profile; sNIC sides through their daemons."""

    profile = "remote"

    def __init__(self, description: dict):
        super().__init__(description)
        self._clients: dict[str, SnicClient] = {}

    @classmethod
    def up(cls, spec: TestbedSpec) -> RemotePlatform:
        if spec.datapath != "veth":
            raise SpecError("the remote profile runs on the veth datapath only")
        if not SNIC_MODELS[spec.snic_model]:
            raise SpecError(f"a {spec.snic_model} sNIC runs no NFs and no daemon: use the emulated profile")
        if spec.controller is not None and not spec.controller.startswith("ssl:"):
            raise SpecError("with the remote profile the sNICs reach the controller over ssl: only")
        taken = system.run(["ip", "-4", "-o", "addr", "show"])
        for host_ip, _ in mgmt_links(spec):
            if f" {host_ip.split('/')[0]}/" in taken:
                raise SpecError(f"--mgmt-subnet {spec.mgmt_subnet}: {host_ip} is already on an interface here")
        return super().up(spec)

    @classmethod
    def _builder(cls) -> type[_Builder]:
        return _RemoteBuilder

    # -- the host's channels to a sNIC ----------------------------------------------------------

    def remote(self, switch_id: str) -> dict:
        sw = self.switch(switch_id)
        if "machine" not in sw:
            raise PlatformError(f"switch {switch_id!r} is not a remote sNIC")
        return sw["machine"]

    def client(self, switch_id: str) -> SnicClient:
        """The channel to `switch_id`'s daemon (one per sNIC, kept)."""
        if switch_id not in self._clients:
            m, creds = self.remote(switch_id), self.description["remote"]
            host, port = m["daemon"].rsplit(":", 1)
            tls = wire.context(ssl.Purpose.SERVER_AUTH, creds["certificate"], creds["private_key"],
                               creds["ca_cert"])
            self._clients[switch_id] = SnicClient((host, int(port)), tls, m["daemon_name"])
        return self._clients[switch_id]

    def call(self, switch_id: str, op: str, **args) -> dict:
        try:
            return self.client(switch_id).call(op, **args)
        except RemoteError as exc:
            raise PlatformError(str(exc)) from None

    def vsctl(self, switch_id: str, *args: str) -> str:
        """ovs-vsctl against a switch's database: a remote sNIC's over SSL, with the host's certificate."""
        if not self._is_remote(switch_id):
            return super().vsctl(switch_id, *args)
        creds = self.description["remote"]
        return system.run(["ovs-vsctl", f"--db={self.switch(switch_id)['ovsdb']}", "--timeout=10",
                           f"--private-key={creds['private_key']}", f"--certificate={creds['certificate']}",
                           f"--ca-cert={creds['ca_cert']}", *args]).strip()

    # -- runtime: a remote sNIC's side is its daemon's --------------------------------------------

    def _is_remote(self, switch_id: str) -> bool:
        return "machine" in self.switch(switch_id)

    def side(self, switch_id: str) -> SwitchSide:
        if self._is_remote(switch_id):
            raise PlatformError(f"{switch_id} is a remote sNIC: the host reaches it through its daemon only")
        return super().side(switch_id)

    def add_port(self, switch_id: str, name: str) -> dict:
        if not self._is_remote(switch_id):
            return super().add_port(switch_id, name)
        created = self.call(switch_id, "add_port", port=name)
        return {"name": created["name"], "ofport": created["ofport"], "netns": None, "nf_ifname": None}

    def remove_port(self, switch_id: str, name: str) -> None:
        if not self._is_remote(switch_id):
            return super().remove_port(switch_id, name)
        self.call(switch_id, "remove_port", port=name)

    def port_up(self, switch_id: str, name: str) -> bool:
        if not self._is_remote(switch_id):
            return super().port_up(switch_id, name)
        return self.call(switch_id, "port_up", port=name)["up"]

    def port_backlog(self, switch_id: str, name: str) -> int:
        if not self._is_remote(switch_id):
            return super().port_backlog(switch_id, name)
        return self.call(switch_id, "port_backlog", port=name)["bytes"]

    def spawn(self, switch_id: str, argv: list[str], **popen_kwargs) -> subprocess.Popen:
        if self._is_remote(switch_id):
            raise PlatformError(f"{switch_id} is a remote sNIC: its daemon starts the NFs there")
        return super().spawn(switch_id, argv, **popen_kwargs)

    def adopt_process(self, switch_id: str, pid: int) -> None:
        if self._is_remote(switch_id):
            raise PlatformError(f"{switch_id} is a remote sNIC: no host process runs there")
        super().adopt_process(switch_id, pid)

    def cpu_seconds(self) -> dict[str, float]:
        return {sw["id"]: (self.call(sw["id"], "cpu_seconds")["seconds"] if "machine" in sw
                           else self.cgroup(sw["id"]).usage_seconds())
                for sw in self.description["switches"]}

    def _loss_report(self) -> dict:
        return drops.report(self.description, self._machine_drops)

    def _machine_drops(self, sw: dict) -> dict:
        """What a remote sNIC counts on itself, from its daemon."""
        ends = [link["snic_port"] for link in self.description["pcie_links"] if link["snic"] == sw["id"]]
        return self.call(sw["id"], "losses", pcie_ports=ends)

    def _switch_status(self, sw: dict) -> dict:
        if "machine" not in sw:
            return super()._switch_status(sw)
        daemons = {}
        for name, probe in (("uno-snicd", lambda: self.call(sw["id"], "ping")),
                            ("ovsdb-server", lambda: self.vsctl(sw["id"], "br-exists", sw["bridge"]))):
            try:
                probe()
                daemons[name] = True
            except PlatformError:
                daemons[name] = False
        try:
            cpu = round(self.call(sw["id"], "cpu_seconds")["seconds"], 3)
        except PlatformError:
            cpu = None
        return {"bridge": sw["bridge"], "netns": sw["netns"], "daemons": daemons,
                "netns_present": sw["netns"] is None or sw["netns"] in system.netns_list(), "cpu_seconds": cpu,
                "cpu_quota_cores": sw["cgroup"]["cores"], "mgmt": sw["machine"]["snic_ip"],
                "ports": {p["name"]: p["ofport"] for p in sw["ports"]}}


    # -- the emulation's controls: faults of a real board, for tests ----------------------------------

    def kill_daemon(self, switch_id: str) -> int:
        """SIGKILL `switch_id`'s daemon, as a crash on the board would (its init starts it again); its pid."""
        pid = self.call(switch_id, "ping")["pid"]
        self.kill_process(switch_id, pid)
        log.warning("killed the sNIC daemon of %s (its pid %d)", switch_id, pid)
        return pid

    def kill_process(self, switch_id: str, pid: int) -> None:
        """SIGKILL the process `pid` (as `switch_id`'s machine numbers it) and wait until it is dead, as a crash there
        would leave it."""
        holder = self.remote(switch_id).get("holder")
        if holder is None:
            raise PlatformError(f"{switch_id} is a board of its own, not an emulated one: nothing here can signal it")
        system.kill_and_wait(machine.host_pid(holder, pid))

    def set_mgmt_link(self, switch_id: str, up: bool) -> None:
        """Plug or unplug `switch_id`'s management link (its host end: the sNIC's end loses its carrier)."""
        system.run(["ip", "link", "set", self.remote(switch_id)["host_ifname"], "up" if up else "down"])
        log.warning("the management link of %s is %s", switch_id, "up" if up else "down")


class _RemoteBuilder(_Builder):
    """The emulated platform's steps, with each sNIC booted as a machine and reached over its links."""

    def __init__(self, spec: TestbedSpec, names: Names, state: pathlib.Path, ledger: Ledger):
        super().__init__(spec, names, state, ledger)
        self.snics = self.switch_ids[1:]
        self.mgmt = dict(zip(self.snics, mgmt_links(spec), strict=True))
        self.holders: dict[str, int] = {}

    def _namespaces(self) -> None:
        super()._namespaces()
        self.pki = self._pki((ONESWITCH_NAME, AGENT_NAME))
        # What the sNIC must not see: the project's checkout, and the host's state (under /run: hidden anyway).
        hidden = [str(pathlib.Path(uno_platform.__file__).resolve().parents[2]), str(pathlib.Path(self.spec.state_dir))]
        for i, sw in enumerate(self.snics):
            disk = self._disk(sw)
            machine.install(disk)
            for source, name in ((self.pki.private_key(sw), f"{sw}-privkey.pem"),
                                 (self.pki.certificate(sw), f"{sw}-cert.pem"),
                                 (self.pki.controller_ca, "controllerca.pem")):
                shutil.copy(source, disk / "etc/uno" / name)
            host_ip, snic_ip = self.mgmt[sw]
            netns = self.names.switch_netns(sw)
            # Recorded with its host end: deleting that end is immediate, while the sNIC's end goes
            # only when the kernel gets round to freeing the deleted namespace.
            self.ledger.record("link", name=self.names.mgmt_host_port(i), netns=None)
            system.run(["ip", "link", "add", "name", self.names.mgmt_host_port(i), "type", "veth",
                        "peer", "name", MGMT_SNIC_PORT, "netns", netns])   # goes with the sNIC's namespace
            system.run(["ip", "addr", "add", host_ip, "dev", self.names.mgmt_host_port(i)])
            system.run(["ip", "link", "set", self.names.mgmt_host_port(i), "up"])
            system.run(["ip", "-n", netns, "addr", "add", snic_ip, "dev", MGMT_SNIC_PORT])
            system.run(["ip", "-n", netns, "link", "set", MGMT_SNIC_PORT, "up"])
            self._nf_port_pool(netns, disk)
            booted = machine.boot(netns, disk, hidden, self.cgroups[sw])
            self.ledger.record("process", name=f"{sw}/machine", pid=booted.power,
                               start=system.start_time(booted.power), group=False)
            self.holders[sw] = booted.holder

    def _disk(self, sw: str) -> pathlib.Path:
        return self.state / f"{sw}-disk"

    @staticmethod
    def _nf_port_pool(netns: str, disk: pathlib.Path) -> None:
        """The sNIC's NF ports, made before its daemon runs as a BlueField's SFs are: veth pairs standing for an SF's
        representor and netdev (they go with the sNIC's namespace), listed where the daemon reads them."""
        pairs = [{"representor": f"sfrep{n}", "netdev": f"sfnet{n}"} for n in range(EMULATED_NF_PORTS)]
        for pair in pairs:
            make_veth(pair["representor"], netns, pair["netdev"], netns)
        (disk / "etc/uno" / NF_PORT_POOL).write_text(json.dumps(pairs, indent=1) + "\n")

    def _ovs_instance(self, sw: str) -> OvsInstance:
        if sw not in self.holders:
            return super()._ovs_instance(sw)
        return OvsInstance(SNIC_OVS_RUNDIR, None, enter=machine.enter(self.holders[sw]))

    def _host_pid(self, sw: str, pid: int) -> int:
        return machine.host_pid(self.holders[sw], pid) if sw in self.holders else pid

    def _db_options(self, sw: str) -> list[str]:
        if sw not in self.holders:
            return []
        return [f"--remote=pssl:{OVSDB_PORT}:{_address(self.mgmt[sw][1])}",
                f"--private-key={machine.ETC}/{sw}-privkey.pem", f"--certificate={machine.ETC}/{sw}-cert.pem",
                f"--ca-cert={machine.ETC}/controllerca.pem"]

    def _switches(self) -> None:
        super()._switches()
        for sw in self.snics:
            self._start_daemon(sw)

    def _start_daemon(self, sw: str) -> None:
        cgroup = self.cgroups[sw]
        # The sNIC's init keeps the daemon running, as systemd's Restart=always does on a DPU (deploy/): a
        # daemon that dies comes back and knows its NFs again from its run directory.
        argv = [*machine.enter(self.holders[sw]), "sh", "-c", f'while :; do "$@"; sleep {DAEMON_RESTART_S}; done',
                "uno-snicd", "env", f"PYTHONPATH={machine.LIB}",
                *daemon_argv(machine.PYTHON, self.names, sw, self.mgmt[sw][1], cgroup,
                             etc=machine.ETC, bin_dir=machine.BIN)]
        with open(self._disk(sw) / "var/log/uno-snicd.log", "ab") as logf:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                    preexec_fn=preexec_join(cgroup), start_new_session=True)
        self.ledger.record("process", name=f"{sw}/uno-snicd", pid=proc.pid, start=system.start_time(proc.pid),
                           group=True)
        client = SnicClient((_address(self.mgmt[sw][1]), DAEMON_PORT),
                            wire.context(ssl.Purpose.SERVER_AUTH, str(self.pki.certificate(AGENT_NAME)),
                                         str(self.pki.private_key(AGENT_NAME)), str(self.pki.switch_ca)), sw)
        deadline = time.monotonic() + DAEMON_TIMEOUT
        while True:
            try:
                client.call("ping")
                break
            except RemoteError as exc:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise PlatformError(f"the sNIC daemon of {sw} did not start: "
                                        f"{system.last_line(self._disk(sw) / 'var/log/uno-snicd.log')}") from exc
                time.sleep(0.05)
            finally:
                client.close()

    def _connect_controller(self, sw: str, host: str, port: int, ssl_on: bool) -> None:
        if sw not in self.holders:
            return super()._connect_controller(sw, host, port, ssl_on)
        host_ip = _address(self.mgmt[sw][0])
        self._relay(sw, "controller-relay", [f"TCP-LISTEN:{CONTROLLER_RELAY_PORT},bind={host_ip},fork,reuseaddr",
                                              self.controller_relay_target(host, port)])
        ovs = self.ovs[sw]
        ovs.vsctl("set-ssl", f"{machine.ETC}/{sw}-privkey.pem", f"{machine.ETC}/{sw}-cert.pem",
                  f"{machine.ETC}/controllerca.pem")
        ovs.vsctl("set-controller", self.names.switch_bridge(sw), f"ssl:{host_ip}:{CONTROLLER_RELAY_PORT}")

    def _description(self) -> dict:
        description = super()._description()
        description["profile"] = RemotePlatform.profile
        description["remote"] = {"private_key": str(self.pki.private_key(AGENT_NAME)),
                                 "certificate": str(self.pki.certificate(AGENT_NAME)),
                                 "ca_cert": str(self.pki.switch_ca)}
        for entry in description["switches"]:
            sw = entry["id"]
            if sw not in self.holders:
                continue
            host_ip, snic_ip = self.mgmt[sw]
            del entry["openflow"], entry["appctl"]
            entry["netns"] = self.names.switch_netns(sw)    # the emulation's, for captures in tests
            entry["ovsdb"] = f"ssl:{_address(snic_ip)}:{OVSDB_PORT}"
            entry["machine"] = {"host_ip": host_ip, "snic_ip": snic_ip,
                                "host_ifname": self.names.mgmt_host_port(self.snics.index(sw)),
                                "snic_ifname": MGMT_SNIC_PORT, "daemon": f"{_address(snic_ip)}:{DAEMON_PORT}",
                                "daemon_name": sw, "disk": str(self._disk(sw)), "holder": self.holders[sw]}
        return description

