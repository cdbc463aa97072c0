"""Issue 15, item 9: the agent answers bad bodies with 400, keeps DELETE consistent on a full disk, and stops
with one line when its inventory cannot be written."""
from __future__ import annotations

import contextlib
import pathlib
import subprocess
import sys

import pytest
from test_agent import PLATFORM, nf_pids

from uno_harness.agent import http_json

pytestmark = pytest.mark.platform


@contextlib.contextmanager
def small_disk(path: pathlib.Path, size: str = "4m"):
    """A tmpfs of `size` at `path`, unmounted afterwards."""
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def fill(disk: pathlib.Path) -> pathlib.Path:
    filler = disk / "filler"
    with contextlib.suppress(OSError), open(filler, "wb", buffering=0) as f:
        while True:
            f.write(b"\0" * 4096)
    return filler


def test_nan_and_deep_json_are_bad_requests(uno_stack):
    stack = uno_stack(**PLATFORM)
    url = f"{stack.agent_url}/v2.1/servers"
    bodies = {
        "NaN": b'{"server": {"name": "m", "flavorRef": "monitor", "uno:expected_gbps": NaN}}',
        "Infinity": b'{"server": {"name": "m", "flavorRef": "monitor", "uno:expected_gbps": Infinity}}',
        "deep": b'{"server": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    }
    for what, raw in bodies.items():
        status, body = http_json(url, "POST", raw=raw, timeout=30)
        assert status == 400 and "badRequest" in body, (what, status, body)
    assert stack.api("GET", "/v2.1/servers", expect=200)["servers"] == []


def test_delete_on_a_full_disk_changes_nothing_or_everything(uno_stack, tmp_path):
    with small_disk(tmp_path / "disk") as disk:
        stack = uno_stack(agent_config={"database": str(disk / "inventory.db")}, **PLATFORM)
        nf = stack.create("mon", "monitor", **{"uno:expected_gbps": 0.1})
        pids = nf_pids(stack, "monitor")
        filler = fill(disk)
        status, body = http_json(f"{stack.agent_url}/v2.1/servers/{nf['id']}", "DELETE", timeout=60)
        # Before: 500, with the NF, its port and its virtual port gone and the server still ACTIVE.
        assert status == 503 and "nothing was changed" in body["serviceUnavailable"]["message"], (status, body)
        server = stack.api("GET", f"/v2.1/servers/{nf['id']}", expect=200)["server"]
        assert server["status"] == "ACTIVE"
        assert nf_pids(stack, "monitor") == pids, "the NF still runs"
        vport = nf["ports"][0]["virtual_port"]
        assert http_json(f"http://127.0.0.1:{stack.ports.rest}/v1/ports/{vport}")[0] == 200, "its virtual port stays"
        filler.unlink()
        stack.api("DELETE", f"/v2.1/servers/{nf['id']}", expect=204)
        assert nf_pids(stack, "monitor") == []
        stack.stop()


def test_a_read_only_inventory_stops_the_agent_with_one_line(uno_stack, tmp_path):
    stack = uno_stack(**PLATFORM)
    db = tmp_path / "ro" / "inventory.db"
    db.parent.mkdir()
    with small_disk(tmp_path / "ro" / "mnt", "1m") as mnt:
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        config = stack.workdir / "agent.json"  # the config the stack started its agent with
        result = subprocess.run([sys.executable, "-m", "uno_agent.daemon", "--config", str(config),
                                 "--database", str(mnt / "inventory.db")],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "inventory" in lines[0] and "cannot be opened" in lines[0], result.stderr
