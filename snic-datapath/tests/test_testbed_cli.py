"""`unoctl testbed` on bad input: one line, non-zero exit, nothing created."""
import json
import subprocess
import sys

import pytest

UNOCTL = [sys.executable, "-m", "uno_agent.unoctl"]


def unoctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*UNOCTL, *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args, reason", [
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--pcie-gbps", "-1"], "--pcie-gbps must be between"),
    (["--snic-cores", "0"], "--snic-cores must be between"),
    (["--vms", "many"], "invalid int value"),
    (["--prefix", "muchtoolongprefix-"], "longer than 15 characters"),
    (["--controller", "tcp:nowhere"], "must look like tcp:IP:PORT"),
])
def test_bad_input_fails_with_one_line(args, reason, tmp_path):
    result = unoctl("testbed", "up", "--state-dir", str(tmp_path), *args)
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert reason in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_recipe_with_unknown_key_is_refused(tmp_path):
    recipe = tmp_path / "recipe.json"
    recipe.write_text(json.dumps({"vms": 2, "pcie_gbps": 1}))
    result = unoctl("testbed", "up", "--state-dir", str(tmp_path / "state"), "--config", str(recipe))
    assert result.returncode != 0
    assert "unknown key 'pcie_gbps'" in result.stderr
    assert not (tmp_path / "state").exists()


def test_status_of_unknown_prefix_fails(tmp_path):
    result = unoctl("testbed", "status", "--prefix", "nothere-", "--state-dir", str(tmp_path))
    assert result.returncode != 0
    assert "no testbed with prefix 'nothere-'" in result.stderr


def test_every_command_has_help():
    for args in (["--help"], ["testbed", "--help"], ["testbed", "up", "--help"],
                 ["testbed", "down", "--help"], ["testbed", "status", "--help"]):
        result = unoctl(*args)
        assert result.returncode == 0
        assert "usage: unoctl" in result.stdout
