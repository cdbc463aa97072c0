"""Launchers start VMs and NFs on a side of the platform, with their switch port, and stop them.

Two launchers sit behind the `Launcher` interface: `ProcessLauncher` (NFs as
processes, VMs as namespaces; the emulated platform's default) and
`libvirt_launcher.LibvirtLauncher` (both as libvirt LXC domains). Instances are
detached from the agent, so they outlive an agent restart and are re-adopted by
pid + start time.
"""
from __future__ import annotations

import abc
import dataclasses
import logging
import os
import pathlib
import subprocess
import tempfile
import time
from collections.abc import Callable

from uno_agent.errors import AgentError, BadRequest, Conflict, Unavailable
from uno_nfs import NfControl
from uno_nfs.command import control_socket, prepare_nf
from uno_nfs.control import accepts
from uno_platform import system
from uno_platform.base import Platform
from uno_platform.errors import PlatformError

log = logging.getLogger(__name__)
READY_TIMEOUT = 10.0


@dataclasses.dataclass(frozen=True)
class Instance:
    """A running VM or NF: its process, its switch port, and (NFs) its control socket."""

    pid: int | None
    pid_start: int | None
    port: str
    control: str | None = None
    netns: str | None = None
    ip: str | None = None
    mac: str | None = None


class LaunchError(AgentError):
    """The instance did not start (its log's last line says why)."""


class Launcher(abc.ABC):
    """Starts and stops instances; the switch port is part of the instance."""

    def __init__(self, platform: Platform, bin_dir: pathlib.Path, run_dir: pathlib.Path):
        self.platform = platform
        self.bin_dir = bin_dir
        self.run_dir = run_dir
        run_dir.mkdir(parents=True, exist_ok=True)

    @abc.abstractmethod
    def start_nf(self, instance_id: str, binary: str, side: str, port: str,
                 config_text: str | None, *, hold_packets: int | None = None) -> Instance:
        """Create `port` on `side`'s switch and start the NF on it; ready when this returns.

        With `hold_packets`, the NF holds what it receives, up to that many packets, until told to release it
        (a migration target).
        """

    @abc.abstractmethod
    def start_vm(self, instance_id: str, index: int) -> Instance:
        """Start VM number `index` on the host switch."""

    @abc.abstractmethod
    def stop(self, instance_id: str, kind: str, side: str | None, port: str | None,
             pid: int | None, pid_start: int | None, *, keep_port: bool = False) -> None:
        """Stop the instance and remove its port (unless `keep_port`: an NF's spare, see `Server.spare`);
        whatever is already gone is fine."""

    def remove_port(self, side: str, port: str) -> None:
        """Remove an NF port no instance uses (a spare no longer kept); an absent one is fine."""
        platform_call(self.platform.remove_port, side, port)

    @abc.abstractmethod
    def alive(self, instance_id: str, kind: str, pid: int | None, pid_start: int | None,
              netns: str | None, *, side: str | None = None) -> bool:
        """Whether the instance (on `side`) still runs."""

    def crash(self, side: str, instance: Instance) -> None:
        """SIGKILL an NF that `start_nf` started on `side` and wait until it is dead, as a crash (a fault for tests)."""
        system.kill_and_wait(instance.pid)

    def reachable(self, side: str) -> bool:
        """Whether `side` can be asked about its instances now (a remote sNIC may be out of reach)."""
        return True

    def nf_control(self, control: str) -> NfControl:
        """A connection to an NF's control channel, `control` as `start_nf` returned it."""
        return NfControl(control)

    def switch_backlog(self, side: str, port: str) -> int:
        """Bytes the instance on `port` sent that `side`'s switch has not read (so not forwarded) yet."""
        return platform_call(self.platform.port_backlog, side, port)

    def binary(self, name: str) -> pathlib.Path:
        path = self.bin_dir / name
        if not path.is_file():
            raise Conflict(f"NF binary {path} is missing (build it with `make nfs`)")
        return path

    def nf_argv(self, instance_id: str, binary: str, iface: str, config_text: str | None,
                hold_packets: int | None, *, backend: str = "afpacket") -> list[str]:
        """The NF's command line; `backend` is the packet I/O the platform's port takes (netio)."""
        return prepare_nf(self.run_dir, instance_id, str(self.binary(binary)), iface=iface, backend=backend,
                          hold_packets=hold_packets, config_text=config_text)

    def check_config(self, binary: str, config_text: str | None) -> None:
        """Have the NF binary validate a configuration; BadRequest with its reason if it refuses it."""
        argv = [str(self.binary(binary)), "--check-config"]
        with tempfile.NamedTemporaryFile("w", dir=self.run_dir, suffix=".conf") as config:
            if config_text is not None:
                config.write(config_text)
                config.flush()
                argv += ["--config", config.name]
            result = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            reason = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
            raise BadRequest(f"uno:nf_config refused by {binary}: {reason.replace(config.name, 'config')}")

    def control_path(self, instance_id: str) -> pathlib.Path:
        return control_socket(self.run_dir, instance_id)

    def log_path(self, instance_id: str) -> pathlib.Path:
        return self.run_dir / f"{instance_id}.log"

    def wait_ready(self, instance_id: str, what: str, exited) -> None:
        """Wait until the NF's control socket accepts connections (the file appears at bind(),
        before listen()); LaunchError with its log's last line if it dies."""
        control = self.control_path(instance_id)
        _wait(lambda: accepts(control), exited,
              lambda: f"{what} did not start: {system.last_line(self.log_path(instance_id))}")

    def wait_port_up(self, side: str, port: str, what: str) -> None:
        """Wait until `side`'s switch delivers to the NF's port (on DPDK, once it has connected to the
        vhost-user socket the NF serves and polls it): traffic remapped to the port before would be dropped."""
        _wait(lambda: platform_call(self.platform.port_up, side, port), lambda: False,
              lambda: f"{what}: the switch did not bring port {port} up in {READY_TIMEOUT:g} s")

    def publish(self, server_id: str, control: str) -> None:
        """Make <run_dir>/<server_id>.sock lead to the server's current control socket (atomically)."""
        link = self.run_dir / f"{server_id}.sock"
        tmp = self.run_dir / f".{server_id}.sock.tmp"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(control)
        os.replace(tmp, link)

    def unpublish(self, server_id: str) -> None:
        (self.run_dir / f"{server_id}.sock").unlink(missing_ok=True)

    def forget(self, instance_id: str) -> None:
        """Remove the instance's control socket and config (its log stays for the operator)."""
        for suffix in (".sock", ".conf"):
            (self.run_dir / f"{instance_id}{suffix}").unlink(missing_ok=True)


class ProcessLauncher(Launcher):
    """NFs as processes in the side's namespace and cgroup; VMs as namespaces."""

    def start_nf(self, instance_id: str, binary: str, side: str, port: str,
                 config_text: str | None, *, hold_packets: int | None = None) -> Instance:
        self.binary(binary)  # fail before creating anything
        created = platform_call(self.platform.add_port, side, port)
        try:
            argv = self.nf_argv(instance_id, binary, created["nf_ifname"], config_text, hold_packets,
                                backend=created.get("backend", "afpacket"))
            with open(self.log_path(instance_id), "ab") as log_out:
                proc = self.platform.spawn(side, argv, stdin=subprocess.DEVNULL, stdout=log_out,
                                           stderr=log_out, start_new_session=True)
            started = system.start_time(proc.pid)
            try:
                self.wait_ready(instance_id, f"{binary} on {side}", lambda: proc.poll() is not None)
                self.wait_port_up(side, port, f"{binary} on {side}")
            except LaunchError:
                system.stop_process(proc.pid, started)
                proc.wait()
                raise
        except BaseException:
            self.remove_port(side, port)
            raise
        log.info("started NF %s (%s) on %s as pid %d", instance_id, binary, side, proc.pid)
        return Instance(pid=proc.pid, pid_start=started, port=port,
                        control=str(self.control_path(instance_id)), netns=created["netns"])

    def start_vm(self, instance_id: str, index: int) -> Instance:
        vm = platform_call(self.platform.add_vm, index)
        return Instance(pid=None, pid_start=None, port=vm["port"], netns=vm["netns"], ip=vm["ip"],
                        mac=vm["mac"])

    def stop(self, instance_id: str, kind: str, side: str | None, port: str | None,
             pid: int | None, pid_start: int | None, *, keep_port: bool = False) -> None:
        if kind == "vm":
            if port:
                platform_call(self.platform.remove_vm, vm_index(port))
            return
        if pid is not None:
            system.stop_process(pid, pid_start)
        if side and port and not keep_port:
            self.remove_port(side, port)

    def alive(self, instance_id: str, kind: str, pid: int | None, pid_start: int | None,
              netns: str | None, *, side: str | None = None) -> bool:
        if kind == "vm":
            return netns is not None and netns in system.netns_list()
        return pid is not None and system.is_alive(pid, pid_start)


def _wait(done: Callable[[], bool], failed: Callable[[], bool], reason: Callable[[], str]) -> None:
    """Poll `done` until it is true; LaunchError with `reason()` when `failed()` or after READY_TIMEOUT."""
    deadline = time.monotonic() + READY_TIMEOUT
    while not done():
        if failed() or time.monotonic() > deadline:
            raise LaunchError(reason())
        time.sleep(0.01)


def platform_call(function, *args, **kwargs):
    """Call the platform; its failures become 503s (the platform is a dependency)."""
    try:
        return function(*args, **kwargs)
    except PlatformError as exc:
        raise Unavailable(f"platform: {exc}") from None


def vm_netns(prefix: str, server: dict) -> str:
    """The namespace of a VM the process launcher made, from its API view: <prefix>vm<N> for 10.0.0.<N+1>."""
    return f"{prefix}vm{int(server['addresses']['tenant'][0]['addr'].rsplit('.', 1)[1]) - 1}"


def vm_index(port: str) -> int:
    """The number of a VM from its port name, '<prefix>vm<N>'."""
    return int(port.rsplit("vm", 1)[1])
