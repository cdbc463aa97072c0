"""The flavor catalog: NF and VM types with their resource profiles, as data.

flavors.json (beside this file) holds the defaults; an operator's flavors file
adds flavors or replaces them by id. Costs per side: a fixed `cpu_cores` plus
`cpu_per_gbps` times the traffic the instance handles, and `mem_mb`; a side of
null means the flavor cannot run there (VMs never run on the sNIC). The
defaults follow the paper's §5.3 profiling: a DPI-like NF needs 5 host cores or
10 sNIC cores per 9 Gbps (sNIC/host ratio 2), L7FW ratio 4, SECGW 0.75 because
the sNIC's crypto engine accelerates it.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib

import jsonschema

DEFAULT_FILE = pathlib.Path(__file__).with_name("flavors.json")

_COST = {
    "type": "object", "additionalProperties": False,
    "required": ["cpu_cores", "cpu_per_gbps", "mem_mb"],
    "properties": {"cpu_cores": {"type": "number", "minimum": 0},
                   "cpu_per_gbps": {"type": "number", "minimum": 0},
                   "mem_mb": {"type": "number", "minimum": 0}},
}
FLAVOR_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "required": ["id", "name", "kind", "host", "snic"],
    "properties": {
        "id": {"type": "string", "pattern": "^[a-z][a-z0-9._-]{0,31}$"},
        "name": {"type": "string"},
        "kind": {"enum": ["vm", "nf"]},
        "binary": {"type": "string", "pattern": "^[a-z0-9_-]+$"},
        "host": {"oneOf": [_COST, {"type": "null"}]},
        "snic": {"oneOf": [_COST, {"type": "null"}]},
        "accelerated": {"type": "boolean"},
    },
}


class CatalogError(ValueError):
    """A flavors file is unreadable or a flavor is malformed (one-line reason)."""


@dataclasses.dataclass(frozen=True)
class Cost:
    cpu_cores: float
    cpu_per_gbps: float
    mem_mb: float

    def cpu(self, gbps: float) -> float:
        return self.cpu_cores + self.cpu_per_gbps * gbps


@dataclasses.dataclass(frozen=True)
class Flavor:
    """One NF or VM type. `host`/`snic` is None where the flavor cannot run."""

    id: str
    name: str
    kind: str
    host: Cost | None
    snic: Cost | None
    binary: str | None = None
    accelerated: bool = False

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _flavor(data: dict, source: str) -> Flavor:
    try:
        jsonschema.validate(data, FLAVOR_SCHEMA)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "flavor"
        raise CatalogError(f"{source}: flavor {data.get('id', '?')!r}: {where}: {exc.message}") from None
    if data["kind"] == "nf" and "binary" not in data:
        raise CatalogError(f"{source}: NF flavor {data['id']!r} needs a binary")
    if data["host"] is None and data["snic"] is None:
        raise CatalogError(f"{source}: flavor {data['id']!r} can run nowhere")
    costs = {side: Cost(**data[side]) if data[side] else None for side in ("host", "snic")}
    return Flavor(id=data["id"], name=data["name"], kind=data["kind"], binary=data.get("binary"),
                  accelerated=data.get("accelerated", False), **costs)


def _read(path: pathlib.Path) -> list[dict]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise CatalogError(f"cannot read flavors file {path}: {exc}") from None
    if not isinstance(data, list):
        raise CatalogError(f"{path} must hold a JSON list of flavors")
    return data


def load(extra: pathlib.Path | None = None) -> dict[str, Flavor]:
    """The default flavors, with those of `extra` added or replacing them by id."""
    flavors = {}
    for path in (DEFAULT_FILE, extra) if extra else (DEFAULT_FILE,):
        for data in _read(path):
            flavor = _flavor(data, str(path))
            flavors[flavor.id] = flavor
    return flavors
