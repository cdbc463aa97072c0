"""The placement graph: the solver's input as validated, immutable data.

A document (JSON) is checked against `graph.schema.json` and then against the rules a schema
cannot say (ids unique, edges name known nodes, every capacity listed, pins that exist...).
Every rejection is a `GraphError` naming the offending field, e.g. ``edges[3].dst``.
"""
from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources as importlib_resources
from typing import Any

import jsonschema

SCHEMA_ID = "uno-placement-graph/1"
HOST = "host"
KINDS = ("nf", "vm", "port")


class GraphError(ValueError):
    """A malformed graph. `field` names the offending field (``nodes[2].pin``)."""

    def __init__(self, field_path: str, reason: str) -> None:
        super().__init__(f"{field_path}: {reason}")
        self.field = field_path
        self.reason = reason


@dataclass(frozen=True)
class Sides:
    """Amounts of each resource on each side; a resource left out is 0.

    `snic_accel` is None when the node gives no separate needs for an accelerating sNIC
    (then its `snic` needs apply there too).
    """

    host: Mapping[str, float] = field(default_factory=dict)
    snic: Mapping[str, float] = field(default_factory=dict)
    snic_accel: Mapping[str, float] | None = None


@dataclass(frozen=True)
class Node:
    """An NF, a VM or an sNIC Ethernet port. Invariant: `pin` and `current` are known locations."""

    id: str
    kind: str
    needs: Sides
    per_gbps: Sides
    gbps: float | None = None
    accel: str | None = None
    pin: str | None = None
    current: str | None = None
    migration_cost: float | None = None


@dataclass(frozen=True)
class Edge:
    """Traffic from `src` to `dst` (known, distinct nodes), in Gbps."""

    src: str
    dst: str
    gbps: float


@dataclass(frozen=True)
class Snic:
    """A smart NIC: its PCIe limit T (Gbps) and capacity D for every declared resource."""

    id: str
    pcie_gbps: float
    capacity: Mapping[str, float]
    accel: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Objective:
    """Weights of the minimised cost; `host_weights` has an entry for every resource."""

    host_weights: Mapping[str, float]
    migration: float = 0.0
    pcie_gbps: float = 0.0
    pcie_crossing: float = 0.0


@dataclass(frozen=True)
class Graph:
    """A valid placement graph: build it with `from_dict`/`from_json`, which reject bad input."""

    resources: tuple[str, ...]
    snics: tuple[Snic, ...]
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    objective: Objective
    pin_accelerated: bool = False

    @property
    def locations(self) -> tuple[str, ...]:
        """Every place a node can run: the host, then the sNICs in declaration order."""
        return (HOST,) + tuple(s.id for s in self.snics)

    @classmethod
    def from_json(cls, text: str) -> Graph:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise GraphError("$", f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
        return cls.from_dict(doc)

    @classmethod
    def from_dict(cls, doc: Any) -> Graph:
        _check_schema(doc)
        resources = tuple(doc["resources"])
        snics = tuple(_snic(s, i, resources) for i, s in enumerate(doc["snics"]))
        _unique((s.id for s in snics), "snics", "id")
        locations = (HOST,) + tuple(s.id for s in snics)
        if HOST in locations[1:]:
            raise GraphError(f"snics[{locations[1:].index(HOST)}].id", f"'{HOST}' is reserved for the host")
        nodes = tuple(_node(n, i, resources, locations) for i, n in enumerate(doc["nodes"]))
        _unique((n.id for n in nodes), "nodes", "id")
        edges = _edges(doc["edges"], {n.id for n in nodes})
        objective = _objective(doc.get("objective", {}), resources)
        pin_accelerated = bool(doc.get("options", {}).get("pin_accelerated", False))
        return cls(resources, snics, nodes, edges, objective, pin_accelerated)

    @staticmethod
    def validate(doc: Any) -> None:
        """Raise GraphError naming the first bad field of the document; return if it is valid."""
        Graph.from_dict(doc)

    def to_dict(self) -> dict[str, Any]:
        """The graph as a document that `from_dict` accepts (defaults written out)."""
        return {
            "schema": SCHEMA_ID,
            "resources": list(self.resources),
            "snics": [_snic_doc(s) for s in self.snics],
            "nodes": [_node_doc(n) for n in self.nodes],
            "edges": [{"src": e.src, "dst": e.dst, "gbps": e.gbps} for e in self.edges],
            "objective": {
                "host_weights": dict(self.objective.host_weights),
                "migration": self.objective.migration,
                "pcie_gbps": self.objective.pcie_gbps,
                "pcie_crossing": self.objective.pcie_crossing,
            },
            "options": {"pin_accelerated": self.pin_accelerated},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)


def schema() -> dict[str, Any]:
    """The JSON schema of the graph document."""
    text = importlib_resources.files(__package__).joinpath("graph.schema.json").read_text()
    return json.loads(text)


def _inline(node: Any, defs: Mapping[str, Any]) -> Any:
    """The schema with every local $ref replaced by its definition (none is recursive): jsonschema
    spends most of its time resolving references otherwise (5x on a 5,000-node graph)."""
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[1]], defs)
        return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


_VALIDATOR = jsonschema.Draft202012Validator(_inline(schema(), schema()["$defs"]))


def _check_schema(doc: Any) -> None:
    errors = list(_VALIDATOR.iter_errors(doc))
    if not errors:
        return
    # Report the first error in document order, the one a reader meets first.
    error = min(errors, key=lambda e: [str(p).zfill(9) for p in e.absolute_path])
    path = _path(error.absolute_path)
    if error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        raise GraphError(_join(path, missing[0]), "missing")
    if error.validator == "additionalProperties":
        known = error.schema.get("properties", {})
        extra = [k for k in error.instance if k not in known]
        raise GraphError(_join(path, extra[0]), "unknown field")
    raise GraphError(path, _reason(error))


def _reason(error: jsonschema.ValidationError) -> str:
    value, instance = error.validator_value, error.instance
    if error.validator == "minimum":
        return f"must be >= {value}, got {instance}"
    if error.validator == "type":
        return f"must be of type {value}, got {json.dumps(instance)}"
    if error.validator == "enum":
        return f"must be one of {', '.join(map(str, value))}, got {json.dumps(instance)}"
    if error.validator == "const":
        return f"must be {json.dumps(value)}, got {json.dumps(instance)}"
    if error.validator == "pattern":
        return f"must be 1-64 characters of letters, digits and _.:-, got {json.dumps(instance)}"
    if error.validator == "uniqueItems":
        return "has duplicate entries"
    if error.validator == "minItems":
        return f"needs at least {value} entr{'y' if value == 1 else 'ies'}"
    return error.message


def _path(parts: Iterable[Any]) -> str:
    out = "$"
    for part in parts:
        out = f"{out}[{part}]" if isinstance(part, int) else _join(out, part)
    return out


def _join(path: str, key: str) -> str:
    return key if path == "$" else f"{path}.{key}"


def _unique(ids: Iterable[str], where: str, key: str) -> None:
    seen: dict[str, int] = {}
    for i, ident in enumerate(ids):
        if ident in seen:
            raise GraphError(f"{where}[{i}].{key}", f"duplicate id '{ident}' (also {where}[{seen[ident]}])")
        seen[ident] = i


def _amounts(doc: Mapping[str, float], where: str, resources: tuple[str, ...]) -> dict[str, float]:
    for name, amount in doc.items():
        if name not in resources:
            raise GraphError(f"{where}.{name}", f"unknown resource (declared: {', '.join(resources)})")
        if not math.isfinite(amount):
            raise GraphError(f"{where}.{name}", f"must be finite, got {amount}")
    return {name: float(amount) for name, amount in doc.items()}


def _sides(doc: Mapping[str, Any], where: str, resources: tuple[str, ...]) -> Sides:
    accel = doc.get("snic_accel")
    return Sides(
        host=_amounts(doc.get("host", {}), f"{where}.host", resources),
        snic=_amounts(doc.get("snic", {}), f"{where}.snic", resources),
        snic_accel=None if accel is None else _amounts(accel, f"{where}.snic_accel", resources),
    )


def _snic(doc: Mapping[str, Any], i: int, resources: tuple[str, ...]) -> Snic:
    where = f"snics[{i}]"
    capacity = _amounts(doc["capacity"], f"{where}.capacity", resources)
    for name in resources:
        if name not in capacity:
            raise GraphError(f"{where}.capacity.{name}", "missing (every declared resource needs a capacity)")
    _finite(doc["pcie_gbps"], f"{where}.pcie_gbps")
    return Snic(doc["id"], float(doc["pcie_gbps"]), capacity, frozenset(doc.get("accel", ())))


def _finite(value: float, where: str) -> None:
    if not math.isfinite(value):
        raise GraphError(where, f"must be finite, got {value}")


def _node(doc: Mapping[str, Any], i: int, resources: tuple[str, ...], locations: tuple[str, ...]) -> Node:
    where = f"nodes[{i}]"
    for key in ("pin", "current"):
        if key in doc and doc[key] not in locations:
            raise GraphError(f"{where}.{key}", f"unknown location '{doc[key]}' (have: {', '.join(locations)})")
    kind, pin = doc["kind"], doc.get("pin")
    if kind == "vm":
        if pin not in (None, HOST):
            raise GraphError(f"{where}.pin", "a VM runs on the host")
        pin = HOST
    elif kind == "port":
        if pin is None and len(locations) == 2:
            pin = locations[1]
        if pin in (None, HOST):
            raise GraphError(f"{where}.pin", f"a port must name its sNIC (have: {', '.join(locations[1:])})")
    current = doc.get("current")
    if pin is not None and current not in (None, pin):
        raise GraphError(f"{where}.current", f"'{current}' contradicts the pin '{pin}'")
    needs = _sides(doc.get("needs", {}), f"{where}.needs", resources)
    per_gbps = _sides(doc.get("per_gbps", {}), f"{where}.per_gbps", resources)
    accel = doc.get("accel")
    if accel is None and (needs.snic_accel is not None or per_gbps.snic_accel is not None):
        which = "needs" if needs.snic_accel is not None else "per_gbps"
        raise GraphError(f"{where}.{which}.snic_accel", "given but the node names no accel")
    for key in ("gbps", "migration_cost"):
        if key in doc:
            _finite(doc[key], f"{where}.{key}")
    return Node(
        id=doc["id"], kind=kind, needs=needs, per_gbps=per_gbps,
        gbps=None if "gbps" not in doc else float(doc["gbps"]), accel=accel, pin=pin, current=current,
        migration_cost=None if "migration_cost" not in doc else float(doc["migration_cost"]),
    )


def _edges(docs: list[Mapping[str, Any]], node_ids: set[str]) -> tuple[Edge, ...]:
    seen: dict[tuple[str, str], int] = {}
    edges = []
    for i, doc in enumerate(docs):
        for key in ("src", "dst"):
            if doc[key] not in node_ids:
                raise GraphError(f"edges[{i}].{key}", f"unknown node '{doc[key]}'")
        pair = (doc["src"], doc["dst"])
        if pair[0] == pair[1]:
            raise GraphError(f"edges[{i}].dst", f"same as src '{pair[0]}' (no self loops)")
        if pair in seen:
            raise GraphError(f"edges[{i}]", f"duplicate of edges[{seen[pair]}] ({pair[0]} -> {pair[1]})")
        _finite(doc["gbps"], f"edges[{i}].gbps")
        seen[pair] = i
        edges.append(Edge(pair[0], pair[1], float(doc["gbps"])))
    return tuple(edges)


def _objective(doc: Mapping[str, Any], resources: tuple[str, ...]) -> Objective:
    weights = {name: 1.0 for name in resources}
    weights.update(_amounts(doc.get("host_weights", {}), "objective.host_weights", resources))
    for key in ("migration", "pcie_gbps", "pcie_crossing"):
        if key in doc:
            _finite(doc[key], f"objective.{key}")
    return Objective(
        host_weights=weights,
        migration=float(doc.get("migration", 0.0)),
        pcie_gbps=float(doc.get("pcie_gbps", 0.0)),
        pcie_crossing=float(doc.get("pcie_crossing", 0.0)),
    )


def _sides_doc(sides: Sides) -> dict[str, Any]:
    doc: dict[str, Any] = {"host": dict(sides.host), "snic": dict(sides.snic)}
    if sides.snic_accel is not None:
        doc["snic_accel"] = dict(sides.snic_accel)
    return doc


def _snic_doc(snic: Snic) -> dict[str, Any]:
    return {"id": snic.id, "pcie_gbps": snic.pcie_gbps, "capacity": dict(snic.capacity),
            "accel": sorted(snic.accel)}


def _node_doc(node: Node) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": node.id, "kind": node.kind,
                           "needs": _sides_doc(node.needs), "per_gbps": _sides_doc(node.per_gbps)}
    optional = {"gbps": node.gbps, "accel": node.accel, "pin": node.pin, "current": node.current,
                "migration_cost": node.migration_cost}
    doc.update({k: v for k, v in optional.items() if v is not None})
    return doc
