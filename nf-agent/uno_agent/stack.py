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
import subprocess
import sys
import time
import urllib.error
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
JAR = REPO / "oneswitch" / "target" / "oneswitch.jar"
CONTROLLERS = REPO / "tests" / "controllers"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float, what: str, interval: float = 0.05):
    """Poll until `predicate()` is truthy and return it; TimeoutError naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


class Proc:
    """A process we started, its log file, and a way to stop exactly it."""

    def __init__(self, name: str, argv: list[str], log: pathlib.Path, env: dict | None = None):
        self.name, self.log, self.argv = name, log, argv
        self._log_file = open(log, "ab")
        self.popen = subprocess.Popen(argv, stdout=self._log_file, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, env=None if env is None else {**os.environ, **env})

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, timeout: float = 10) -> None:
        if self.alive():
            self.popen.terminate()
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self._log_file.close()

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.alive():
            self.popen.kill()
            self.popen.wait()
        self._log_file.close()

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def http_json(url: str, method: str = "GET", body=None, headers: dict | None = None, timeout: float = 30):
    """(status, parsed JSON or None) of one HTTP call."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as err:
        text = err.read()
        try:
            return err.code, json.loads(text) if text else None
        except ValueError:
            return err.code, None


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def start_osken(port: int, app: str, log: pathlib.Path, env: dict | None = None) -> Proc:
    """os-ken with one of tests/controllers' apps, listening on 127.0.0.1:`port`."""
    proc = Proc("os-ken", [sys.executable, str(CONTROLLERS / "osken_launch.py"), "--ofp-listen-host", "127.0.0.1",
                           "--ofp-tcp-listen-port", str(port), str(CONTROLLERS / app)], log, env)
    wait_for(lambda: _alive_or_raise(proc) and listening(port), 30, "os-ken to listen")
    return proc


@dataclasses.dataclass(frozen=True)
class OneSwitchPorts:
    listen: int
    south: int
    rest: int

    @classmethod
    def free(cls) -> OneSwitchPorts:
        return cls(free_port(), free_port(), free_port())


def start_oneswitch(platform_json: str, ports: OneSwitchPorts, log: pathlib.Path, *,
                    controller: int | None, extra: list[str] = ()) -> Proc:
    """OneSwitch for a platform brought up with --controller tcp:127.0.0.1:`ports.south`."""
    if not JAR.exists():
        raise FileNotFoundError(f"{JAR} is missing: build it with `make oneswitch`")
    argv = ["java", "-jar", str(JAR), "--platform", platform_json, "--listen", f"ptcp:{ports.listen}",
            "--southbound", f"ptcp:{ports.south}", "--rest", f"127.0.0.1:{ports.rest}",
            "--controller", f"tcp:127.0.0.1:{controller}" if controller else "none", *extra]
    return Proc("oneswitch", argv, log)


def wait_oneswitch(proc: Proc, rest_port: int, controllers: int = 0, timeout: float = 60) -> dict:
    """Wait until OneSwitch sees every physical switch and `controllers` controllers."""
    def healthy():
        _alive_or_raise(proc)
        try:
            status, health = http_json(f"http://127.0.0.1:{rest_port}/v1/health", timeout=2)
        except OSError:
            return None
        ok = status == 200 and health["status"] == "ok" and health["controllers"] >= controllers
        return health if ok else None
    return wait_for(healthy, timeout, "OneSwitch to see every switch and controller")


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
            self.oneswitch = start_oneswitch(f"{self.platform.description['state_dir']}/platform.json",
                                             self.ports, workdir / "oneswitch.log", controller=controller)
            self.procs.append(self.oneswitch)
            wait_oneswitch(self.oneswitch, self.ports.rest, controllers=1)
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
