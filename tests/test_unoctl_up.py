"""`unoctl up` / `unoctl down`: the platform, OneSwitch and the agent with one command, on real parts."""
from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys

import pytest
from uno_oneswitch.client import http_json

import uno_platform
from uno_harness.processes import free_port
from uno_platform import system

pytestmark = pytest.mark.platform
STATE_DIR = uno_platform.DEFAULT_STATE_DIR


def unoctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "uno_agent.unoctl", *args], capture_output=True, text=True,
                          timeout=180)


def test_up_brings_the_stack_up_once_and_down_takes_all_of_it_away():
    prefix = f"u{secrets.token_hex(2)}-"
    ports = {flag: free_port() for flag in ("openflow", "southbound", "oneswitch-rest", "agent")}
    argv = ["up", "--prefix", prefix, "--vms", "1", "--json",
            *(arg for flag, port in ports.items() for arg in (f"--{flag}", str(port)))]
    daemons = {}
    try:
        first = unoctl(*argv)
        assert first.returncode == 0, first.stderr
        running = json.loads(first.stdout)
        daemons = running["daemons"]
        assert set(daemons) == {"oneswitch", "uno-agent"}
        agent, oneswitch = daemons["uno-agent"], daemons["oneswitch"]
        # loopback only, and the REST APIs want the tokens up wrote (readable by their owner only)
        assert agent["url"] == f"http://127.0.0.1:{ports['agent']}"
        assert http_json(agent["url"] + "/v2.1/servers")[0] == 401
        assert http_json(oneswitch["url"] + "/v1/ports")[0] == 401
        assert os.stat(agent["token_file"]).st_mode & 0o077 == 0
        token = {"X-Auth-Token": open(agent["token_file"]).read().strip()}
        status, body = http_json(agent["url"] + "/v2.1/servers", "POST",
                                 {"server": {"name": "mon", "flavorRef": "monitor"}}, headers=token)
        assert status == 202 and body["server"]["status"] == "ACTIVE", body
        # the bridges point at OneSwitch, which sees them and the NF's port
        health = http_json(oneswitch["url"] + "/v1/health",
                           headers={"X-Auth-Token": open(oneswitch["token_file"]).read().strip()})[1]
        assert health["status"] == "ok" and all(s["connected"] for s in health["switches"])
        assert health["virtual_ports"] >= 3   # the VM, the wire port, the monitor
        # up again starts nothing: the same processes answer
        again = unoctl(*argv)
        assert again.returncode == 0, again.stderr
        assert {n: d["pid"] for n, d in json.loads(again.stdout)["daemons"].items()} == \
            {n: d["pid"] for n, d in daemons.items()}
        # a platform made for another southbound is not silently reused
        other = unoctl("up", "--prefix", prefix, "--southbound", str(free_port()))
        assert other.returncode != 0 and "take it down first" in other.stderr
        assert len(other.stderr.strip().splitlines()) == 1
    finally:
        down = unoctl("down", "--prefix", prefix)
    assert down.returncode == 0, down.stderr
    for d in daemons.values():
        assert not system.is_alive(d["pid"], None)
    assert prefix not in uno_platform.list_prefixes(STATE_DIR)
    assert not [n for n in system.netns_list() if n.startswith(prefix)]
    stack = f"{STATE_DIR}/{prefix}stack"
    assert sorted(os.listdir(stack)) == ["oneswitch.log", "oneswitch.token", "uno-agent.json", "uno-agent.log",
                                         "uno-agent.token"]
    shutil.rmtree(stack)


def test_up_refuses_bad_ports_in_one_line():
    result = unoctl("up", "--agent", "0")
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "a port is 1..65535" in result.stderr


def test_up_on_the_remote_profile_runs_nfs_on_the_snic_machine_through_its_daemon():
    """`unoctl up --profile remote`: the sNIC is a machine of its own; its bridge reaches OneSwitch over SSL across
    the management link, and the agent starts NFs there through the sNIC's daemon."""
    prefix = f"u{secrets.token_hex(2)}-"
    ports = {flag: free_port() for flag in ("openflow", "southbound", "oneswitch-rest", "agent")}
    argv = ["up", "--prefix", prefix, "--profile", "remote", "--mgmt-subnet", "192.168.104.0/24", "--vms", "0",
            "--json", *(arg for flag, port in ports.items() for arg in (f"--{flag}", str(port)))]
    try:
        first = unoctl(*argv)
        assert first.returncode == 0, first.stderr
        daemons = json.loads(first.stdout)["daemons"]
        platform = uno_platform.load(prefix, STATE_DIR)
        assert platform.profile == "remote" and platform.description["ssl"]
        token = {"X-Auth-Token": open(daemons["uno-agent"]["token_file"]).read().strip()}
        status, body = http_json(daemons["uno-agent"]["url"] + "/v2.1/servers", "POST",
                                 {"server": {"name": "mon", "flavorRef": "monitor"}}, headers=token)
        assert status == 202 and body["server"]["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "snic0", body
        listed = platform.client("snic0").call("list")["nfs"]
        assert [nf["binary"] for nf in listed.values()] == ["monitor"] and all(nf["alive"] for nf in listed.values())
        health = http_json(daemons["oneswitch"]["url"] + "/v1/health",
                           headers={"X-Auth-Token": open(daemons["oneswitch"]["token_file"]).read().strip()})[1]
        assert health["status"] == "ok" and all(s["connected"] for s in health["switches"]), health
    finally:
        down = unoctl("down", "--prefix", prefix)
    assert down.returncode == 0, down.stderr
    assert prefix not in uno_platform.list_prefixes(STATE_DIR)
    assert not [link for link in system.links() if link.startswith(prefix)]
    shutil.rmtree(f"{STATE_DIR}/{prefix}stack")
