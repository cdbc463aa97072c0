"""One Open vSwitch instance (its own ovsdb-server + ovs-vswitchd) inside a network namespace.

Two userspace datapaths cannot share a namespace (both create the tap `ovs-netdev`),
so every switch of the platform is a separate instance with its own run directory.
All its control sockets are Unix sockets under that directory, reachable from the
root namespace.
"""
from __future__ import annotations

import os
import pathlib
import subprocess
from collections.abc import Sequence

from uno_platform import dpdk, system
from uno_platform.cgroups import SideCgroup, preexec_join
from uno_platform.errors import PlatformError

SCHEMA = "/usr/share/openvswitch/vswitch.ovsschema"
DAEMONS = ("ovsdb-server", "ovs-vswitchd")


class OvsInstance:
    """Paths and commands of one OVS instance; `start` launches it, the rest talk to it."""

    def __init__(self, rundir: str | pathlib.Path, netns: str | None, *, enter: Sequence[str] = ()):
        """`netns`: the namespace the daemons are started in (None: this process's). `enter`: the start of a
        command that runs on the machine the switch is on (the remote profile's sNIC); `rundir` is a path
        there."""
        self.rundir = pathlib.Path(rundir)
        self.netns = netns
        self.enter = list(enter)

    @property
    def db_socket(self) -> str:
        return f"unix:{self.rundir}/db.sock"

    @property
    def appctl_socket(self) -> str:
        """The switch daemon's control socket: the name the platform starts it with or, for a system's Open vSwitch
        (a DPU's, started by its package's service), the default name, which carries the daemon's pid."""
        fixed = self.rundir / "ovs-vswitchd.ctl"
        if self.enter or fixed.exists():   # (through `enter`, the platform's own, whose name is fixed)
            return str(fixed)
        try:
            return str(self.rundir / f"ovs-vswitchd.{self.pid('ovs-vswitchd')}.ctl")
        except (OSError, ValueError):
            return str(fixed)

    def mgmt_socket(self, bridge: str) -> str:
        return f"unix:{self.rundir}/{bridge}.mgmt"

    def pidfile(self, daemon: str) -> pathlib.Path:
        return self.rundir / f"{daemon}.pid"

    def pid(self, daemon: str) -> int:
        """The daemon's pid from its pidfile (OSError or ValueError when there is none)."""
        if self.enter:
            return int(self._run("cat", str(self.pidfile(daemon)), error=OSError).strip())
        return int(self.pidfile(daemon).read_text().strip())

    @property
    def _env(self) -> dict:
        run = str(self.rundir)
        return {"OVS_RUNDIR": run, "OVS_LOGDIR": run, "OVS_DBDIR": run}

    def start(self, cgroup: SideCgroup, on_started, *, dpdk_index: int | None = None,
              db_options: Sequence[str] = ()) -> None:
        """Create the database and start both daemons in the namespace and cgroup.

        `on_started(daemon, pid)` is called as soon as each daemon runs, so the
        caller can record it before anything else can fail. With `dpdk_index`, the
        switch is OVS-DPDK, the platform's switch number `dpdk_index` (dpdk.py).
        `db_options` go to ovsdb-server (more remotes, their SSL keys).
        """
        if self.enter:
            self._run("mkdir", "-p", str(self.rundir))
        else:
            self.rundir.mkdir(parents=True)
        self._run("ovsdb-tool", "create", str(self.rundir / "conf.db"), SCHEMA)
        self._daemon("ovsdb-server", [
            str(self.rundir / "conf.db"), f"--remote=p{self.db_socket}", *db_options,
        ], cgroup, on_started)
        self.vsctl("--no-wait", "init")
        binary = "ovs-vswitchd"
        if dpdk_index is not None:
            self.vsctl("--no-wait", "set", "Open_vSwitch", ".", *dpdk.other_config(dpdk_index))
            binary = dpdk.VSWITCHD
        self._daemon("ovs-vswitchd", [self.db_socket], cgroup, on_started, binary=binary)

    def _daemon(self, name: str, args: list[str], cgroup: SideCgroup, on_started, *,
                binary: str | None = None) -> None:
        argv = [*self.enter, *(["ip", "netns", "exec", self.netns] if self.netns else []), binary or name, *args,
                f"--pidfile={self.pidfile(name)}", f"--unixctl={self.rundir / name}.ctl",
                f"--log-file={self.rundir / name}.log", "--detach", "--no-chdir"]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                              env={**os.environ, **self._env}, preexec_fn=preexec_join(cgroup))
        if proc.returncode != 0:
            lines = proc.stderr.strip().splitlines()
            raise PlatformError(f"{name} in {self.netns or self.rundir} failed to start: "
                                f"{lines[-1] if lines else proc.returncode}")
        on_started(name, self.pid(name))

    def vsctl(self, *args: str) -> str:
        return self._run("ovs-vsctl", f"--db={self.db_socket}", "--timeout=20", *args).strip()

    def appctl(self, *args: str) -> str:
        return self._run("ovs-appctl", "-t", self.appctl_socket, *args).strip()

    def _run(self, *argv: str, error: type[Exception] = PlatformError) -> str:
        try:
            return system.run([*self.enter, *argv])
        except PlatformError as exc:
            raise error(str(exc)) from None

    def ofport(self, interface: str) -> int:
        """The OpenFlow port number OVS gave `interface`; PlatformError if it failed to open."""
        ofport = int(self.vsctl("get", "Interface", interface, "ofport"))
        if ofport < 0:
            error = self.vsctl("get", "Interface", interface, "error")
            raise PlatformError(f"OVS could not open {interface}: {error}")
        return ofport
