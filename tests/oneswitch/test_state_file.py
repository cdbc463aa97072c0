"""OneSwitch's state file at start. A file written by OneSwitch starts it with its rules; a torn last record (a write a
crash cut short, never acknowledged) is dropped with a warning and the rest kept. A damaged file (a part missing or of
the wrong type, a flipped digit) and a state directory that cannot be created or written stop it with exit status 2
and a one-line reason, never an empty start. No platform needed: OneSwitch runs without switches."""
from __future__ import annotations

import json
import pathlib
import subprocess

import pytest
from oneswitch_stack import free_port, ofctl, rest, start_oneswitch, wait_for
from test_durability import mounted
from uno_oneswitch import statefile


class Run:
    """OneSwitch without a platform, on a state file."""

    def __init__(self, tmp: pathlib.Path, state: pathlib.Path):
        self.listen, self.rest = free_port(), free_port()
        self.proc = start_oneswitch(None, tmp / f"oneswitch-{self.listen}.log", listen=self.listen,
                                    south=free_port(), rest_port=self.rest, controller=None,
                                    extra=["--state-file", str(state)])

    def up(self) -> bool:
        assert self.proc.alive(), f"OneSwitch exited:\n{self.proc.tail()}"
        try:
            return rest(self.rest, "GET", "/v1/health")[0] == 200
        except OSError:
            return False

    def rules(self) -> list[str]:
        return sorted(line.split(" actions=")[0].split(", ")[-1]
                      for line in ofctl(f"tcp:127.0.0.1:{self.listen}", "dump-flows").stdout.splitlines()[1:])


def refusal(tmp: pathlib.Path, state: pathlib.Path) -> str:
    """The one-line reason OneSwitch gives for not starting on `state` (it must exit with status 2)."""
    run = Run(tmp, state)
    rc = run.proc.popen.wait(timeout=60)
    run.proc.stop()
    lines = run.proc.log.read_text().splitlines()
    assert rc == 2, f"exit status {rc}:\n{run.proc.tail()}"
    reasons = [line for line in lines if line.startswith("oneswitch: ")]
    assert len(reasons) == 1, lines
    return reasons[0]


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> pathlib.Path:
    """A state file OneSwitch wrote: a snapshot with two rules (at a clean stop), then a record with a third (the
    process was killed)."""
    tmp = tmp_path_factory.mktemp("state")
    state = tmp / "state.json"
    run = Run(tmp, state)
    wait_for(run.up, 30, "OneSwitch")
    for flow in ("priority=5,ip,actions=drop", "priority=6,arp,actions=drop"):
        ofctl(f"tcp:127.0.0.1:{run.listen}", "add-flow", flow)
    run.proc.stop()
    run = Run(tmp, state)
    wait_for(run.up, 30, "OneSwitch")
    ofctl(f"tcp:127.0.0.1:{run.listen}", "add-flow", "priority=7,ipv6,actions=drop")
    run.proc.kill()
    return state


def copy(written: pathlib.Path, tmp: pathlib.Path, change=None, raw=None) -> pathlib.Path:
    """A copy of the written file; `change(bodies)` edits its records (checksums made valid again), `raw(bytes)` its
    bytes."""
    data = written.read_bytes()
    if change is not None:
        bodies = statefile.records(data)
        change(bodies)
        data = b"".join(statefile.frame(b) for b in bodies)
    if raw is not None:
        data = raw(data)
    path = tmp / "copy.json"
    path.write_bytes(data)
    return path


def test_a_written_file_starts_oneswitch_with_its_rules(written, tmp_path):
    bodies = statefile.read(written)
    assert [b["kind"] for b in bodies] == ["snapshot", "changes"]
    run = Run(tmp_path, copy(written, tmp_path))
    try:
        wait_for(run.up, 30, "OneSwitch")
        assert run.rules() == ["priority=5,ip", "priority=6,arp", "priority=7,ipv6"]
    finally:
        run.proc.stop()


def test_a_torn_last_record_is_dropped_and_the_rest_kept(written, tmp_path):
    torn = copy(written, tmp_path, raw=lambda d: d[:len(d) - 40])
    run = Run(tmp_path, torn)
    try:
        wait_for(run.up, 30, "OneSwitch")
        assert run.rules() == ["priority=5,ip", "priority=6,arp"]
        assert "dropped its torn last record" in run.proc.log.read_text()
    finally:
        run.proc.stop()


def flip_without_checksum(data: bytes) -> bytes:
    at = data.index(b'"flow_mod":"') + 40
    return data[:at] + (b"1" if data[at:at + 1] == b"0" else b"0") + data[at + 1:]


@pytest.mark.parametrize("damage,reason", [
    ({"change": lambda b: b[0].pop("rules")}, "record 1 at byte 0: the snapshot has no 'rules'"),
    ({"change": lambda b: b[0].update(rules={})}, "'rules' must be a list, not object"),
    ({"change": lambda b: b[0].pop("port_map")}, "the snapshot has no 'port_map'"),
    ({"change": lambda b: b[0].pop("groups")}, "the snapshot has no 'groups'"),
    ({"raw": flip_without_checksum}, "record 1 at byte 0: checksum mismatch"),
    ({"change": lambda b: b[1].update(seq=9)}, "record 2 at byte"),
    ({"raw": lambda d: b""}, "the file is empty"),
    ({"raw": lambda d: json.dumps(statefile.records(d)[0]).encode()}, "no record header"),
], ids=["no-rules", "rules-object", "no-port_map", "no-groups", "flipped-digit", "record-number", "empty",
        "bare-json"])
def test_a_damaged_file_stops_oneswitch_with_the_reason(written, tmp_path, damage, reason):
    line = refusal(tmp_path, copy(written, tmp_path, **damage))
    assert "is damaged: " in line and reason in line, line


def test_a_flipped_digit_with_a_valid_checksum_is_still_checked(written, tmp_path):
    """The checksum recomputed: a flow_mod whose length field was changed no longer decodes to its own length."""
    def change(bodies):
        fm = bodies[0]["rules"][0]["flow_mod"]
        bodies[0]["rules"][0]["flow_mod"] = fm[:4] + "ff" + fm[6:]
    assert "is not an OpenFlow 1.3 message" in refusal(tmp_path, copy(written, tmp_path, change=change))


@pytest.mark.parametrize("where", ["sub/state.json", "state.json"],
                         ids=["uncreatable-directory", "read-only-directory"])
def test_a_state_directory_that_cannot_be_created_or_written_stops_oneswitch(tmp_path, where):
    d = tmp_path / "ro"
    with mounted(d, "--bind", str(d)):
        subprocess.run(["mount", "-o", "remount,bind,ro", str(d)], check=True)
        line = refusal(tmp_path, d / where)
    expected = "cannot create the state file's directory" if "/" in where else "cannot write state file"
    assert expected in line and "Read-only file system" in line, line
