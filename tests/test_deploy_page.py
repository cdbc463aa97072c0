"""deploy/DPU.md, followed as written on the remote emulation: its steps' commands run in order, and what it
tells an operator to install (the systemd units, the /etc/uno examples) is checked against the daemons."""
from __future__ import annotations

import json
import os
import pathlib
import re
import secrets
import shutil
import subprocess
import sys

import pytest

import uno_platform
from uno_platform.testing import unique_prefix

pytestmark = pytest.mark.platform

REPO = pathlib.Path(__file__).resolve().parents[1]
PAGE = REPO / "deploy" / "DPU.md"
EMULATION = "## 3. Try it on the remote emulation"


def emulation_steps() -> list[str]:
    """The page's shell blocks in its emulation section, in order."""
    section = PAGE.read_text().split(EMULATION, 1)[1]
    return re.findall(r"```sh\n(.*?)```", section, re.DOTALL)


def run_step(block: str, env: dict) -> str:
    # each block sees the first's exports, as in one terminal
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", emulation_steps()[0] + block], env=env, cwd=REPO,
                            capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, f"{block}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def test_the_deployment_page_runs_on_the_remote_emulation(tmp_path):
    steps = emulation_steps()
    assert len(steps) == 6 and steps[0].startswith("export") and "unoctl down" in steps[-1]
    etc, prefix = tmp_path / "etc-uno", unique_prefix()
    env = {**os.environ, "UNO_ETC": str(etc), "UNO_PREFIX": prefix,
           "PATH": f"{pathlib.Path(sys.executable).parent}:{os.environ['PATH']}"}
    try:
        for step in steps[1:-1]:
            out = run_step(step, env)
        # the platform took the operator's certificates, and the NF runs on the emulated DPU
        platform = uno_platform.load(prefix, uno_platform.DEFAULT_STATE_DIR)
        assert platform.profile == "remote"
        assert platform.description["remote"]["certificate"] == str(etc / "pki" / "uno-agent-cert.pem")
        assert "runs on snic0" in out or re.search(r"\bsnic0\b", out), out
        assert [nf["binary"] for nf in platform.client("snic0").call("list")["nfs"].values()] == ["monitor"]
        assert (etc / "bluefield" / "README.txt").exists()
        check_the_installed_configs(platform, etc, tmp_path)
    finally:
        run_step(steps[-1], env)
    assert prefix not in uno_platform.list_prefixes(uno_platform.DEFAULT_STATE_DIR)
    assert (etc / "pki" / "uno-agent-cert.pem").exists()        # down keeps the operator's PKI
    shutil.rmtree(f"{uno_platform.DEFAULT_STATE_DIR}/{prefix}stack", ignore_errors=True)


def check_the_installed_configs(platform, etc: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """deploy/etc/uno's examples, with the page's paths pointed at this run, pass the daemons' own checks, and the
    units are valid systemd units that run those checks before they start."""
    pki = etc / "pki"
    # /etc/uno/platform.json: on a server, the render's host/platform.json; here, the emulation's description
    shutil.copy(f"{platform.description['state_dir']}/platform.json", tmp_path / "platform.json")
    moved = {"/etc/uno/oneswitch-privkey.pem": str(pki / "oneswitch-privkey.pem"),
             "/etc/uno/oneswitch-cert.pem": str(pki / "oneswitch-cert.pem"),
             "/etc/uno/switchca.pem": str(pki / "pki" / "switchca" / "cacert.pem"),
             "/etc/uno/": f"{tmp_path}/", "/var/lib/uno/": f"{tmp_path}/", '"uno-"': f'"{platform.prefix}"'}
    for token in ("oneswitch.token", "uno-agent.token"):    # as the page says: a random token each, mode 0600
        (tmp_path / token).write_text(secrets.token_hex(32) + "\n")
        (tmp_path / token).chmod(0o600)
    for name in ("oneswitch.json", "uno-agent.json"):
        text = (REPO / "deploy" / "etc" / "uno" / name).read_text()
        for old, new in moved.items():
            text = text.replace(old, new)
        (tmp_path / name).write_text(text)
    checked = subprocess.run(["java", "-jar", str(REPO / "oneswitch/target/oneswitch.jar"), "--config",
                              str(tmp_path / "oneswitch.json"), "--check-config"], capture_output=True, text=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stderr
    checked = subprocess.run([sys.executable, "-m", "uno_agent.daemon", "--check-config",
                              str(tmp_path / "uno-agent.json")], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    for unit in ("oneswitch.service", "uno-agent.service"):
        text = (REPO / "deploy" / "systemd" / unit).read_text()
        checks = [line for line in text.splitlines() if line.startswith("ExecStartPre=") and "--check-config" in line]
        assert len(checks) == 1 and "/etc/uno/" in checks[0]
        for old, new in {"/opt/uno/venv/bin/uno-agent": str(pathlib.Path(sys.executable).parent / "uno-agent"),
                         "/opt/uno/oneswitch.jar": str(REPO / "oneswitch/target/oneswitch.jar")}.items():
            text = text.replace(old, new)
        (tmp_path / unit).write_text(text)
        verified = subprocess.run(["systemd-analyze", "verify", str(tmp_path / unit)], capture_output=True,
                                  text=True, timeout=60)
        problems = [line for line in verified.stderr.splitlines() if unit in line and "Documentation" not in line]
        assert not problems, verified.stderr
    json.loads((REPO / "deploy" / "etc" / "uno" / "oneswitch.json").read_text())
