"""Starting UNO's processes on one platform: OneSwitch, an os-ken controller, the agent.

Used by `make demo` and the end-to-end tests. Every process is started with its own
log file and stopped through its own handle (never by name), on ports chosen free
at run time so several stacks can run side by side.
"""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import socket
import sys

from uno_oneswitch.client import http_json

from uno_harness.oneswitch import JAR, start_oneswitch, wait_healthy
from uno_harness.processes import Proc, free_port, wait_for
from uno_nfs import NfControl

REPO = pathlib.Path(__file__).resolve().parents[3]
CONTROLLERS = REPO / "tests" / "controllers"


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def start_osken(port: int, app: str, log: pathlib.Path, env: dict | None = None) -> Proc:
    """os-ken with one of tests/controllers' apps, listening on 127.0.0.1:`port`."""
    proc = Proc("os-ken", [sys.executable, str(CONTROLLERS / "osken_launch.py"), "--ofp-listen-host", "127.0.0.1",
                           "--ofp-tcp-listen-port", str(port), str(CONTROLLERS / app)], log,
                env=None if env is None else {**os.environ, **env})
    wait_for(lambda: _alive_or_raise(proc) and listening(port), 30, "os-ken to listen")
    return proc

PROFILES = ("emulated", "remote")     # the platform profiles the agent's end-to-end tests run on
REMOTE_MGMT_SUBNET = "192.168.102.0/24"   # the remote sNICs' management links in tests (not BlueField's own)


def platform_args(profile: str, controller: str) -> dict:
    """What the stack's platform needs on `profile` for its bridges to reach OneSwitch at `controller` (tcp:): on
    the remote profile, the sNIC's bridge reaches it across the management link, over SSL only."""
    if profile == "remote":
        return {"controller": controller.replace("tcp:", "ssl:", 1), "mgmt_subnet": REMOTE_MGMT_SUBNET}
    return {"controller": controller}


@dataclasses.dataclass(frozen=True)
class OneSwitchPorts:
    listen: int
    south: int
    rest: int

    @classmethod
    def free(cls) -> OneSwitchPorts:
        return cls(free_port(), free_port(), free_port())


def start_oneswitch_for(platform_json: str, ports: OneSwitchPorts, log: pathlib.Path, *,
                        controller: int | None) -> Proc:
    """OneSwitch for a platform brought up with --controller tcp:127.0.0.1:`ports.south`."""
    if not JAR.exists():
        raise FileNotFoundError(f"{JAR} is missing: build it with `make oneswitch`")
    return start_oneswitch(platform_json, log, listen=ports.listen, south=ports.south, rest_port=ports.rest,
                           controller=controller)


def start_agent(prefix: str, state_dir: str, oneswitch: OneSwitchPorts, port: int, log: pathlib.Path,
                config: dict | None = None, database: str | None = None) -> Proc:
    """uno-agent for the platform `prefix`, using OneSwitch at `oneswitch`; waits for /health."""
    config_path = log.with_suffix(".json")
    config_path.write_text(json.dumps({
        "listen": f"127.0.0.1:{port}", "platform": {"prefix": prefix, "state_dir": state_dir},
        "oneswitch_url": f"http://127.0.0.1:{oneswitch.rest}",
        "oneswitch_openflow": f"tcp:127.0.0.1:{oneswitch.listen}", **(config or {}),
    }))
    argv = [sys.executable, "-m", "uno_agent.daemon", "--config", str(config_path)]
    if database:
        argv += ["--database", database]
    proc = Proc("uno-agent", argv, log)

    def up():
        _alive_or_raise(proc)
        try:
            return http_json(f"http://127.0.0.1:{port}/health", timeout=2)[0] in (200, 503)
        except OSError:
            return False
    wait_for(up, 30, "uno-agent to answer")
    return proc


def _alive_or_raise(proc: Proc) -> bool:
    if not proc.alive():
        raise RuntimeError(f"{proc.name} exited:\n{proc.tail()}")
    return True


class Stack:
    """A whole UNO on one platform: os-ken (service chains), OneSwitch, uno-agent, on free ports.

    `make_platform(controller)` brings the platform up with its bridges pointed at `controller`
    (tests pass their fixture; the demo and benchmarks `uno_platform.up`). `stop` deletes the
    agent's servers through its API and stops every process; the platform is the caller's.
    """

    def __init__(self, workdir: pathlib.Path, make_platform, agent_config: dict | None = None):
        self.workdir = workdir
        self.ports = OneSwitchPorts.free()
        self.agent_port = free_port()
        self.chains_file = workdir / "chains.json"
        self.agent_config = {"monitor": {"enabled": False}, **(agent_config or {})}
        self.token: str | None = None
        self.agent: Proc | None = None
        self.procs: list[Proc] = []
        try:
            controller = free_port()
            self.osken = start_osken(controller, "service_chain.py", workdir / "osken.log",
                                     {"UNO_CHAINS": str(self.chains_file)})
            self.procs.append(self.osken)
            self.platform = make_platform(f"tcp:127.0.0.1:{self.ports.south}")
            self.oneswitch = start_oneswitch_for(f"{self.platform.description['state_dir']}/platform.json",
                                                 self.ports, workdir / "oneswitch.log", controller=controller)
            self.procs.append(self.oneswitch)
            wait_healthy(self.oneswitch, self.ports.rest, controllers=1, timeout=60, platform=self.platform)
            wait_for(lambda: "connected" in self.osken.log.read_text(), 30,
                     "the controller to see the virtual switch")
            self.start_agent()
        except BaseException:
            self.stop()
            raise

    @property
    def agent_url(self) -> str:
        return f"http://127.0.0.1:{self.agent_port}"

    def start_agent(self) -> Proc:
        state_dir = str(pathlib.Path(self.platform.description["state_dir"]).parent)
        self.agent = start_agent(self.platform.prefix, state_dir, self.ports, self.agent_port,
                                 self.workdir / "agent.log", self.agent_config)
        return self.agent

    def api(self, method: str, path: str, body=None, expect: int | None = None):
        headers = {"X-Auth-Token": self.token} if self.token else {}
        status, data = http_json(self.agent_url + path, method, body, headers=headers, timeout=120)
        if expect is not None and status != expect:
            raise AssertionError(f"{method} {path}: {status} {data}")
        return data

    def create(self, name: str, flavor: str, **extra) -> dict:
        body = {"server": {"name": name, "flavorRef": flavor, **extra}}
        return self.api("POST", "/v2.1/servers", body, expect=202)["server"]

    def migrate(self, server_id: str, to: str, timeout: float = 60) -> dict:
        """Nova's migrate action, then the server once the migration is over (done, or rolled back with a fault)."""
        started = self.api("POST", f"/v2.1/servers/{server_id}/action", {"migrate": {"host": to}}, expect=202)
        assert started["server"]["status"] == "MIGRATING", started

        def over():
            server = self.api("GET", f"/v2.1/servers/{server_id}", expect=200)["server"]
            return server if server["status"] != "MIGRATING" else None
        return wait_for(over, timeout, f"the migration of {server_id} to {to}", interval=0.02)

    def vport_of(self, port_name: str) -> int:
        ports = http_json(f"http://127.0.0.1:{self.ports.rest}/v1/ports")[1]["ports"]
        return next(p["virtual_port"] for p in ports if p["port"] == port_name)

    def set_chains(self, chains: list[dict]) -> None:
        """Tell the controller app the chains (virtual ports only); it installs them within ~0.2 s."""
        tmp = self.chains_file.with_suffix(".tmp")
        tmp.write_text(json.dumps({"chains": chains}))
        tmp.rename(self.chains_file)

    def chain(self, name: str, vm: dict, nfs: list[dict], exit_port: str) -> dict:
        """A chain: traffic from the VM through `nfs` in order out of `exit_port`, and back."""
        return {"name": name, "client": vm["ports"][0]["virtual_port"],
                "client_mac": vm["addresses"]["tenant"][0]["OS-EXT-IPS-MAC:mac_addr"],
                "nfs": [nf["ports"][0]["virtual_port"] for nf in nfs], "exit": self.vport_of(exit_port)}

    def control_socket(self, server_id: str) -> str:
        return f"{self.platform.description['state_dir']}/agent/{server_id}.sock"

    def nf_control(self, server_id: str) -> NfControl:
        """The control channel of the NF that serves `server_id` now: its socket, or on a remote sNIC the
        daemon's channel to it (what the agent published is then `snicd:<sNIC>/<instance>`)."""
        published = os.readlink(self.control_socket(server_id))
        if not published.startswith("snicd:"):
            return NfControl(published)
        side, instance = published.removeprefix("snicd:").split("/", 1)
        return NfControl(published, connect=lambda: self.platform.client(side).control(instance))

    def stop(self) -> None:
        if self.agent is not None and self.agent.alive():
            for server in (self.api("GET", "/v2.1/servers") or {}).get("servers", []):
                self.api("DELETE", f"/v2.1/servers/{server['id']}")
            self.agent.stop()
        for proc in reversed(self.procs):
            proc.stop()

    def logs(self, lines: int = 40) -> str:
        return "\n".join(f"---- {proc.name} log (last lines) ----\n{proc.tail(lines)}"
                         for proc in [*self.procs, self.agent] if proc is not None)
