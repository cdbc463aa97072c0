"""Faucet, unchanged (from PyPI, in a virtualenv of its own: it pins os-ken 3.x), drives OneSwitch as the one
switch of one VLAN over all its virtual ports: Faucet's multi-table OpenFlow 1.3 pipeline (VLAN, learning and
flooding tables, goto-table, push/pop VLAN, packet-ins) runs translated on the host and sNIC bridges; the VMs and
the outside learn each other, ping and TCP work, and Faucet's own Prometheus metrics show the learned hosts."""
from __future__ import annotations

import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import urllib.request

import pytest
from oneswitch_stack import REPO, Proc, free_port, ofctl, wait_for

from uno_platform.traffic import ping, tcp_echo

pytestmark = pytest.mark.platform

REQUIREMENTS = REPO / "tests" / "controllers" / "faucet-requirements.txt"
VENV = REPO / ".build" / "faucet-venv"
DATAPATH_ID = 0x0000554E4F000001  # OneSwitch's default


@pytest.fixture(scope="session")
def faucet_venv() -> pathlib.Path:
    """Faucet's own virtualenv, built once from the pinned requirements (cached in .build/)."""
    stamp = VENV / ".requirements"
    wanted = REQUIREMENTS.read_text()
    if not stamp.exists() or stamp.read_text() != wanted:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True, timeout=120)
        subprocess.run([str(VENV / "bin" / "pip"), "install", "-q", "-r", str(REQUIREMENTS)], check=True, timeout=900)
        stamp.write_text(wanted)
    return VENV


def faucet_config(path: pathlib.Path, ports: list[int]) -> None:
    interfaces = "\n".join(f"      {p}:\n        native_vlan: office" for p in ports)
    path.write_text(f"""vlans:
  office:
    vid: 100
dps:
  uno:
    dp_id: {DATAPATH_ID:#x}
    hardware: "Open vSwitch"
    interfaces:
{interfaces}
""")


def metric(port: int, name: str) -> dict[str, float]:
    """Faucet's Prometheus samples of `name`, by their label text."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            labels, _, value = line.rpartition(" ")
            out[labels[len(name):]] = float(value)
    return out


def test_faucet_learns_the_vms_and_the_outside_through_oneswitch(oneswitch_stack, faucet_venv, tmp_path):
    ctl, prom = free_port(), free_port()
    config = tmp_path / "faucet.yaml"
    faucet_config(config, [1, 2, 3])
    env = {**os.environ, "PATH": f"{faucet_venv / 'bin'}:{os.environ['PATH']}", "FAUCET_CONFIG": str(config),
           "FAUCET_LOG": str(tmp_path / "faucet.log"),
           "FAUCET_EXCEPTION_LOG": str(tmp_path / "faucet-exception.log"),
           "FAUCET_PROMETHEUS_ADDR": "127.0.0.1", "FAUCET_PROMETHEUS_PORT": str(prom)}
    faucet = Proc("faucet", [str(faucet_venv / "bin" / "faucet"), "--ryu-ofp-listen-host", "127.0.0.1",
                             "--ryu-ofp-tcp-listen-port", str(ctl)], tmp_path / "faucet.out", env=env)
    try:
        wait_for(lambda: faucet.alive() and _listening(ctl), 60, "Faucet to listen")
        stack = oneswitch_stack(controller=False, vms=2, oneswitch_args=("--controller", f"tcp:127.0.0.1:{ctl}"))
        wait_for(lambda: metric(prom, "dp_status").get(f'{{dp_id="{DATAPATH_ID:#x}",dp_name="uno"}}') == 1, 60,
                 "Faucet to see OneSwitch up")
        desc = stack.platform.description
        vm0, vm1 = desc["vms"]
        ext, ext_ns = desc["ext"]["interfaces"][0], desc["ext"]["netns"]
        ext_ip = ext["ip"].split("/")[0]
        wait_for(lambda: ping(vm0["netns"], ext_ip, count=1), 60, "VM 0 to reach the outside")
        assert ping(vm1["netns"], ext_ip), "VM 1 to the outside (VM on the host, wire port on the sNIC)"
        assert ping(vm0["netns"], vm1["ip"].split("/")[0]), "VM to VM on the host"
        sent, received = tcp_echo(vm0["netns"], ext_ns, ext_ip, nbytes=1 << 20)
        assert sent == received

        learned = metric(prom, "vlan_hosts_learned")
        assert sum(learned.values()) == 3, learned
        macs = {k for k, v in metric(prom, "learned_l2_port").items() if v > 0}
        for mac in (vm0["mac"], vm1["mac"], ext["mac"]):
            assert any(mac in labels for labels in macs), (mac, macs)
        # Faucet's tables are OneSwitch's virtual tables: several of them, translated onto both bridges.
        virtual = ofctl(stack.target, "dump-flows").stdout
        assert len({int(t) for t in re.findall(r"table=(\d+)", virtual)}) >= 4, virtual
        print(f"Faucet installed {len(virtual.splitlines()) - 1} virtual rules; {json.dumps(learned)}")
    finally:
        faucet.stop()
        for log in ("faucet.out", "faucet.log", "faucet-exception.log"):
            if (tmp_path / log).exists():
                print(f"---- {log} ----\n{(tmp_path / log).read_text(errors='replace')[-3000:]}")


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False
