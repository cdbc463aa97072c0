"""The platform interface: what every profile (emulated, BlueField, Netronome) provides.

A `Platform` is a running server platform, known through its JSON description
(`platform.schema.json`). Profiles register themselves in PROFILES; `up`, `load`
and `down` in `uno_platform` pick the class by profile name.
"""
from __future__ import annotations

import abc
import json
import pathlib
import subprocess
from typing import ClassVar

from uno_platform.errors import PlatformError
from uno_platform.spec import TestbedSpec

DESCRIPTION_FILE = "platform.json"
SCHEMA_ID = "uno-platform/1"
_SCHEMA = json.loads((pathlib.Path(__file__).parent / "platform.schema.json").read_text())


class Platform(abc.ABC):
    """A running platform: a host switch, sNIC switches and the links between them."""

    profile: ClassVar[str]

    def __init__(self, description: dict):
        validate_description(description)
        self.description = description

    # -- lifecycle -----------------------------------------------------------------------

    @classmethod
    @abc.abstractmethod
    def up(cls, spec: TestbedSpec) -> Platform:
        """Build the platform; on any failure remove what was built and raise."""

    @classmethod
    @abc.abstractmethod
    def down(cls, prefix: str, state_dir: str) -> list[str]:
        """Remove everything of `prefix`; returns the problems met (empty when clean)."""

    # -- runtime -------------------------------------------------------------------------

    @property
    def prefix(self) -> str:
        return self.description["prefix"]

    def switch(self, switch_id: str) -> dict:
        for sw in self.description["switches"]:
            if sw["id"] == switch_id:
                return sw
        raise PlatformError(f"no switch {switch_id!r} in testbed {self.prefix!r}")

    def port(self, switch_id: str, name: str) -> dict:
        for port in self.switch(switch_id)["ports"]:
            if port["name"] == name:
                return port
        raise PlatformError(f"no port {name!r} on switch {switch_id!r}")

    @abc.abstractmethod
    def add_port(self, switch_id: str, name: str) -> dict:
        """Create an NF port on a switch: {"name", "ofport", "netns", "nf_ifname"}; a whole port of that name
        already there is reused.

        The NF attaches to `nf_ifname` inside `netns`; the switch side is `name`.
        """

    @abc.abstractmethod
    def remove_port(self, switch_id: str, name: str) -> None:
        """Remove an NF port made by `add_port` (absent ports are fine)."""

    @abc.abstractmethod
    def port_up(self, switch_id: str, name: str) -> bool:
        """Whether the switch delivers to port `name` now. An NF port of `add_port` may come up only after
        the NF serves it: a vhost-user port's switch drops what it sends there until it has connected
        (it retries once a second) and its datapath has taken the port's queues up."""

    @abc.abstractmethod
    def port_backlog(self, switch_id: str, name: str) -> int:
        """Bytes that arrived on port `name` and that its switch has not read yet (0 when the port is gone).

        What an NF sent is only forwarded once the switch reads it: a port is torn down only when this is 0.
        """

    @abc.abstractmethod
    def plug_interface(self, switch_id: str, ifname: str) -> int:
        """Move an interface made elsewhere (a libvirt domain's veth) onto a switch; its ofport."""

    @abc.abstractmethod
    def add_vm(self, index: int) -> dict:
        """Attach a new VM `vm<index>` to the host switch; its description entry plus "ofport"."""

    @abc.abstractmethod
    def remove_vm(self, index: int) -> None:
        """Detach and destroy a VM made by `add_vm` (absent VMs are fine)."""

    @abc.abstractmethod
    def spawn(self, switch_id: str, argv: list[str], **popen_kwargs) -> subprocess.Popen:
        """Start a process on a switch's side (its namespace and CPU budget)."""

    @abc.abstractmethod
    def adopt_process(self, switch_id: str, pid: int) -> None:
        """Count a process started elsewhere (a libvirt domain's) against a side's CPU budget."""

    @abc.abstractmethod
    def cpu_seconds(self) -> dict[str, float]:
        """CPU time used so far by each side's processes, by switch id."""

    @abc.abstractmethod
    def status(self, losses: bool = False) -> dict:
        """Health of every part, and CPU use, as JSON-ready data; with `losses`, also where packets were dropped
        (a few commands per switch, so not for health checks)."""


def validate_description(description: dict) -> None:
    # Imported here: the sNIC daemon imports this package with the sNIC's own Python, which has no jsonschema.
    import jsonschema

    try:
        jsonschema.validate(description, _SCHEMA)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top level)"
        raise PlatformError(f"invalid platform description at {where}: {exc.message}") from None


def description_path(prefix: str, state_dir: str) -> pathlib.Path:
    return pathlib.Path(state_dir) / prefix / DESCRIPTION_FILE


def read_description(prefix: str, state_dir: str) -> dict:
    path = description_path(prefix, state_dir)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise PlatformError(f"no testbed with prefix {prefix!r} ({path} not found)") from None
    except json.JSONDecodeError as exc:
        raise PlatformError(f"{path} is not valid JSON: {exc}") from None


def write_description(description: dict, state_dir: pathlib.Path) -> pathlib.Path:
    """Write atomically, so readers never see half a description."""
    validate_description(description)
    path = state_dir / DESCRIPTION_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(description, indent=2) + "\n")
    tmp.rename(path)
    return path
