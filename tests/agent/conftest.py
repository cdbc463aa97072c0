"""The whole UNO stack for end-to-end tests: platform, OneSwitch, os-ken (service chains), uno-agent.

Everything a test starts is stopped when it ends: the agent's servers are deleted through its API,
then the agent, OneSwitch and the controller are stopped by their handles, then the platform goes.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib

import pytest

from uno_agent.stack import (
    OneSwitchPorts,
    Proc,
    free_port,
    http_json,
    start_agent,
    start_oneswitch,
    start_osken,
    wait_for,
    wait_oneswitch,
)


@dataclasses.dataclass
class UnoStack:
    platform: object
    oneswitch: Proc
    osken: Proc
    agent: Proc | None
    ports: OneSwitchPorts
    agent_port: int
    chains_file: pathlib.Path
    workdir: pathlib.Path
    agent_config: dict
    token: str | None = None

    @property
    def agent_url(self) -> str:
        return f"http://127.0.0.1:{self.agent_port}"

    def api(self, method: str, path: str, body=None, expect: int | None = None):
        headers = {"X-Auth-Token": self.token} if self.token else {}
        status, data = http_json(self.agent_url + path, method, body, headers=headers, timeout=120)
        if expect is not None:
            assert status == expect, f"{method} {path}: {status} {data}"
        return data

    def create(self, name: str, flavor: str, **extra) -> dict:
        body = {"server": {"name": name, "flavorRef": flavor, **extra}}
        return self.api("POST", "/v2.1/servers", body, expect=202)["server"]

    def vport_of(self, port_name: str) -> int:
        ports = http_json(f"http://127.0.0.1:{self.ports.rest}/v1/ports")[1]["ports"]
        return next(p["virtual_port"] for p in ports if p["port"] == port_name)

    def set_chains(self, chains: list[dict]) -> None:
        tmp = self.chains_file.with_suffix(".tmp")
        tmp.write_text(json.dumps({"chains": chains}))
        tmp.rename(self.chains_file)

    def start_agent(self) -> Proc:
        self.agent = start_agent(self.platform.prefix, str(pathlib.Path(self.platform.description["state_dir"]).parent),
                                 self.ports, self.agent_port, self.workdir / "agent.log", self.agent_config)
        return self.agent

    def control_socket(self, server_id: str) -> str:
        return f"{self.platform.description['state_dir']}/agent/{server_id}.sock"


@pytest.fixture
def uno_stack(testbed_factory, tmp_path):
    started: list[UnoStack] = []

    def make(agent_config: dict | None = None, **platform_kwargs) -> UnoStack:
        ports = OneSwitchPorts.free()
        controller_port = free_port()
        chains = tmp_path / "chains.json"
        osken = start_osken(controller_port, "service_chain.py", tmp_path / "osken.log", {"UNO_CHAINS": str(chains)})
        platform = testbed_factory(controller=f"tcp:127.0.0.1:{ports.south}", **platform_kwargs)
        oneswitch = start_oneswitch(f"{platform.description['state_dir']}/platform.json", ports,
                                    tmp_path / "oneswitch.log", controller=controller_port)
        stack = UnoStack(platform, oneswitch, osken, None, ports, free_port(), chains, tmp_path,
                         {"monitor": {"enabled": False}, **(agent_config or {})})
        started.append(stack)
        wait_oneswitch(oneswitch, ports.rest, controllers=1)
        wait_for(lambda: "connected" in osken.log.read_text(), 30, "the controller to see the virtual switch")
        stack.start_agent()
        return stack

    yield make
    for stack in reversed(started):
        if stack.agent and stack.agent.alive():
            for server in stack.api("GET", "/v2.1/servers")["servers"]:
                stack.api("DELETE", f"/v2.1/servers/{server['id']}")
            stack.agent.stop()
        for proc in (stack.oneswitch, stack.osken):
            proc.stop()
        for proc in (stack.agent, stack.oneswitch, stack.osken):
            if proc is not None:
                print(f"---- {proc.name} log (last lines) ----\n{proc.tail(40)}")
