"""The NF agent end to end (issue 6): real platform, OneSwitch, solver, NFs and an os-ken controller."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from uno_agent.launcher import vm_netns as launcher_vm_netns
from uno_harness.agent import PROFILES
from uno_harness.processes import wait_for
from uno_platform import machine, system
from uno_platform.traffic import NumberedUdp, ping

pytestmark = pytest.mark.platform

# sNIC of 0.5 cores: a monitor expecting 0.3 Gbit/s needs 0.05 + 1.11 * 0.3 = 0.38 sNIC cores,
# so one fits and the second does not; an l2fw needs 0.05 + 0.2 * 0.3 = 0.11 and fits beside it.
PLATFORM = {"snic_cores": 0.5, "pcie_gbps": 1.0, "vms": 0, "wire_ports": 1}


def nf_pids(stack, binary: str, server: dict | None = None) -> list[int]:
    """Pids (this machine's) of the NF processes of this stack (of one server, if given) running `binary`."""
    where = f"/agent/{server['id']}-" if server else f"{stack.platform.description['state_dir']}/"
    out = system.run(["pgrep", "-f", f"/nfs/build/bin/{binary} "], check=False)
    pids = [int(p) for p in out.split() if where in _cmdline(int(p))]
    for sw in stack.platform.description["switches"]:
        if "machine" in sw:   # a remote sNIC: only its daemon knows its NFs, by the pids its machine gave them
            nfs = stack.platform.call(sw["id"], "list")["nfs"]
            pids += [machine.host_pid(sw["machine"]["holder"], nf["pid"]) for i, nf in nfs.items()
                     if nf["alive"] and nf["binary"] == binary and (not server or i.startswith(f"{server['id']}-"))]
    return sorted(pids)


def _cmdline(pid: int) -> str:
    """The command line of `pid`; empty when it exited since pgrep listed it."""
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace("\0", " ")
    except OSError:
        return ""


def same_netns(pid: int, netns: str) -> bool:
    return os.stat(f"/proc/{pid}/ns/net").st_ino == os.stat(f"/run/netns/{netns}").st_ino


def vm_netns(stack, vm: dict) -> str:
    return launcher_vm_netns(stack.platform.prefix, vm)


def build_chain(stack) -> tuple[list[dict], list[dict]]:
    vms = [stack.create(f"vm{i}", "vm.small") for i in range(2)]
    nfs = [stack.create("mon1", "monitor", **{"uno:expected_gbps": 0.3}),
           stack.create("mon2", "monitor", **{"uno:expected_gbps": 0.3}),
           stack.create("fw1", "l2fw", **{"uno:expected_gbps": 0.3, "uno:nf_config": "default allow\n"})]
    return vms, nfs


def chain_of(stack, vm: dict, nfs: list[dict]) -> dict:
    return stack.chain("c1", vm, nfs, stack.platform.description["ext"]["interfaces"][0]["port"])


def test_traffic_matrix_follows_the_traffic_and_replacement_needs_the_threshold(uno_stack):
    # One monitor between a VM and the wire. Created expecting 0.5 Gbit/s it does not fit the
    # 0.5-core sNIC (0.05 + 1.11 * 0.5 = 0.6) and starts on the host. Measured traffic is far
    # lower, so the sNIC would do; moving saves its host cost, 0.05 + 0.56 * g cores, which is
    # above the 0.08-core threshold only for g > 54 Mbit/s.
    stack = uno_stack(agent_config={"monitor": {"enabled": True, "interval_s": 1.0, "replace_every": 1000,
                                                "threshold_cores": 0.08, "dampening_s": 0}}, **PLATFORM)
    vm = stack.create("vm0", "vm.small")
    mon = stack.create("mon", "monitor", **{"uno:expected_gbps": 0.5})
    assert mon["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "host"
    stack.set_chains([chain_of(stack, vm, [mon])])
    source = vm_netns(stack, vm)
    ext = stack.platform.description["ext"]
    ext_ip = ext["interfaces"][0]["ip"].split("/")[0]
    wait_for(lambda: ping(source, ext_ip, count=1), 20, "the chain to forward")

    def vm_to_mon_gbps() -> float:
        edges = stack.api("GET", "/v2.1/uno/traffic")["traffic"]["edges"]
        return sum(e["gbps"] for e in edges if e["from"] == "vm0" and e["to"] == "mon")

    def run_at(mbps: float, check) -> tuple[float, dict]:
        pps = mbps * 1e6 / 8 / 1000  # 1000-byte frames
        with NumberedUdp(source, ext["netns"], ext_ip, flows=10, pps=pps, seconds=4.5, size=1000):
            time.sleep(3.5)  # more than two polling intervals after the traffic started
            rate = vm_to_mon_gbps()
            decision = stack.api("POST", "/v2.1/uno/placement", {"reoptimize": {"apply": False}},
                                 expect=200)["placement"]
        check(rate)
        return rate, decision

    low, kept = run_at(10, lambda rate: pytest.approx(0.010, rel=0.35) == rate)
    assert kept["moves"] == {} and "not above the threshold" in kept["detail"]["kept"]
    high, moved = run_at(100, lambda rate: pytest.approx(0.100, rel=0.35) == rate)
    assert high > 5 * low
    assert moved["moves"] == {mon["id"]: "snic0"}
    assert moved["detail"]["host_cpu_saving"] > 0.08


@pytest.mark.parametrize("profile", PROFILES)
def test_agent_restart_keeps_inventory_and_launches_nothing_twice(uno_stack, profile):
    stack = uno_stack(profile=profile, **PLATFORM)
    vms, nfs = build_chain(stack)
    before = stack.api("GET", "/v2.1/servers/detail")["servers"]
    pids = {b: nf_pids(stack, b) for b in ("monitor", "l2fw")}
    assert len(pids["monitor"]) == 2 and len(pids["l2fw"]) == 1

    os.kill(stack.agent.pid, signal.SIGKILL)
    stack.agent.popen.wait()
    stack.start_agent()

    after = stack.api("GET", "/v2.1/servers/detail")["servers"]
    assert after == before
    assert {b: nf_pids(stack, b) for b in pids} == pids
    assert all(s["status"] == "ACTIVE" for s in after)
    # and it still works: a new NF, then deleting one
    extra = stack.create("fw2", "l2fw", **{"uno:nf_config": "default allow\n"})
    stack.api("DELETE", f"/v2.1/servers/{extra['id']}", expect=204)
    assert nf_pids(stack, "l2fw") == pids["l2fw"]

    # An NF that died while the agent was down is reported, not relaunched.
    stack.agent.stop()
    (victim,) = nf_pids(stack, "monitor", nfs[0])
    system.kill_and_wait(victim)
    stack.start_agent()
    dead = stack.api("GET", f"/v2.1/servers/{nfs[0]['id']}")["server"]
    assert dead["status"] == "ERROR" and "died" in dead["fault"]["message"]
    assert len(nf_pids(stack, "monitor")) == 1


def test_an_agent_started_while_the_snic_is_out_of_reach_keeps_its_nfs_and_adopts_them_later(uno_stack):
    """The agent restarts while the remote sNIC's management link is down: it comes up, and neither marks the
    sNIC's NFs dead nor starts them again; once the link is back, a restart adopts them as they run."""
    stack = uno_stack(profile="remote", **PLATFORM)
    vms, nfs = build_chain(stack)
    on_snic = [s["id"] for s in stack.api("GET", "/v2.1/servers/detail")["servers"]
               if s["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "snic0"]
    assert on_snic
    before = stack.api("GET", "/v2.1/servers/detail")["servers"]
    pids = nf_pids(stack, "monitor")
    stack.agent.stop()
    stack.platform.set_mgmt_link("snic0", False)
    try:
        stack.start_agent()
        assert stack.api("GET", "/v2.1/servers/detail")["servers"] == before
        assert recovered(stack)[-1] == (len(before) - len(on_snic), 0, 0, len(on_snic))
    finally:
        stack.platform.set_mgmt_link("snic0", True)
    stack.agent.stop()
    stack.start_agent()
    assert stack.api("GET", "/v2.1/servers/detail")["servers"] == before
    assert nf_pids(stack, "monitor") == pids
    assert recovered(stack)[-1] == (len(before), 0, 0, 0)


def recovered(stack) -> list[tuple[int, ...]]:
    """What each start of the agent so far said it recovered: (adopted, dead, removed, out of reach)."""
    pattern = r"inventory: (\d+) adopted, (\d+) dead, (\d+) half-built removed, (\d+) on sides out of reach"
    return [tuple(map(int, m)) for m in re.findall(pattern, stack.agent.log.read_text())]


def test_unoctl_and_metrics_show_what_the_api_does(uno_stack):
    stack = uno_stack(**PLATFORM)

    def unoctl(*args: str) -> str:
        result = subprocess.run([sys.executable, "-m", "uno_agent.unoctl", *args, "--agent", stack.agent_url],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert "monitor" in unoctl("nf", "flavors")
    created = json.loads(unoctl("nf", "create", "mon1", "--flavor", "monitor", "--expected-gbps", "0.1", "--json"))
    assert created["status"] == "ACTIVE" and created["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "snic0"
    listing = unoctl("nf", "list")
    assert re.search(r"mon1\s+\w{8}\s+monitor\s+ACTIVE\s+snic0\s+\d+", listing), listing
    assert json.loads(unoctl("nf", "show", "mon1", "--json"))["id"] == created["id"]
    stats = unoctl("stats")
    assert re.search(r"snic0\s+1\s+0\.1\d", stats), stats
    assert "mon1: snic0 -> host" in unoctl("nf", "migrate", "mon1")
    assert re.search(r"mon1\s+snic0 -> host\s+done\s+\d+\s+[\d.]+\s+0\s+\d+\s+0", unoctl("nf", "migrations"))
    assert json.loads(unoctl("nf", "migrations", "--json"))[0]["target"] == "host"

    metrics = http_json_text(f"{stack.agent_url}/metrics")
    assert 'uno_servers{kind="nf",side="host",status="ACTIVE"} 1.0' in metrics
    assert 'uno_operations_total{operation="created"} 1.0' in metrics
    assert f'uno_nf_lost_packets_total{{place="hold",server="{created["id"]}"}} 0.0' in metrics

    # where packets were lost: the NF over both its instances (one retired by the migration), and the platform
    losses = json.loads(unoctl("stats", "--json"))["losses"]
    nf = losses["nfs"][created["id"]]
    assert nf["live_counted"] and nf["side"] == "host" and (nf["ring"], nf["hold"], nf["send"]) == (0, 0, 0)
    assert set(losses["platform"]["pcie_shapers"]["snic0"]) == {"host_to_snic", "snic_to_host"}
    assert re.search(r"mon1\s+host\s+0\s+0\s+0", unoctl("stats")), unoctl("stats")
    assert "platform drops: " in unoctl("stats")

    bad = subprocess.run([sys.executable, "-m", "uno_agent.unoctl", "nf", "create", "x", "--flavor", "nope",
                          "--agent", stack.agent_url], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1
    assert "flavorRef" in bad.stderr
    unoctl("nf", "delete", "mon1")
    assert "mon1" not in unoctl("nf", "list")


def http_json_text(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode()


def test_a_netronome_snic_runs_no_nfs_so_the_agent_keeps_them_on_the_host(uno_stack):
    """A platform whose sNIC stands for a Netronome (switching offload only): the monitor, which otherwise goes
    to the sNIC, is placed on the host, and neither a pin nor a migration can put an NF on the sNIC."""
    stack = uno_stack(**PLATFORM, snic_model="netronome")
    assert stack.platform.switch("snic0")["nf_capable"] is False
    mon = stack.create("mon", "monitor", **{"uno:expected_gbps": 0.05})
    assert mon["OS-EXT-SRV-ATTR:hypervisor_hostname"] == "host"
    placement = stack.api("GET", "/v2.1/uno/placement")["placement"]
    assert placement["status"] in ("optimal", "feasible"), placement
    refused = stack.api("POST", "/v2.1/servers", {"server": {"name": "m2", "flavorRef": "monitor",
                                                             "uno:pin": "snic0"}}, expect=400)
    assert "runs no NFs" in json.dumps(refused)
    stack.api("POST", f"/v2.1/servers/{mon['id']}/action", {"migrate": {"host": "snic0"}}, expect=400)
