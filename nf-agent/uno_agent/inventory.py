"""The agent's inventory of servers (VMs and NFs), persisted in SQLite.

Every change is committed before the agent acts on it, so after a crash the
inventory lists everything that may be running; the agent re-adopts live
instances and reports dead ones at start-up (`service.AgentService.recover`).
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import sqlite3
import threading
from typing import Any

from uno_agent.errors import Unavailable

SCHEMA_VERSION = 2
# What each older schema lacks, added in place at the start (version 1: no spare ports)
_UPGRADES = {1: "ALTER TABLE servers ADD COLUMN spare TEXT"}
STATUSES = ("BUILD", "ACTIVE", "MIGRATING", "DELETING", "ERROR")

_COLUMNS = {
    "id": "TEXT PRIMARY KEY",
    "name": "TEXT NOT NULL",
    "flavor": "TEXT NOT NULL",
    "kind": "TEXT NOT NULL",
    "status": "TEXT NOT NULL",
    "side": "TEXT",
    "pin": "TEXT",
    "vport": "INTEGER",
    "port": "TEXT",
    "netns": "TEXT",
    "instance": "TEXT",
    "pid": "INTEGER",
    "pid_start": "INTEGER",
    "control": "TEXT",
    "ip": "TEXT",
    "mac": "TEXT",
    "config": "TEXT NOT NULL",
    "migration": "TEXT",
    "created_at": "REAL NOT NULL",
    "moved_at": "REAL",
    "fault": "TEXT",
    "spare": "TEXT",
}


@dataclasses.dataclass
class Server:
    """One VM or NF the agent manages. `side` is the switch id it runs on (host, snic0, ...)."""

    id: str
    name: str
    flavor: str
    kind: str
    status: str
    created_at: float
    config: dict = dataclasses.field(default_factory=dict)
    migration: dict | None = None     # the journal of a migration under way (migration.py)
    side: str | None = None
    pin: str | None = None
    vport: int | None = None
    port: str | None = None
    netns: str | None = None
    instance: str | None = None       # the running instance (launcher id); changes with each migration
    pid: int | None = None
    pid_start: int | None = None
    control: str | None = None
    ip: str | None = None
    mac: str | None = None
    moved_at: float | None = None
    fault: str | None = None
    # {"side", "port"}: the NF's port on the side it left, kept plugged for its return (a migration back
    # reuses it: no bridge port is added or deleted while traffic flows)
    spare: dict | None = None


class InventoryError(Unavailable):
    """The inventory cannot be opened or written (a full disk, a read-only directory): nothing was changed."""


class Inventory:
    """Servers by id; safe to use from the API threads and the monitor thread."""

    def __init__(self, path: pathlib.Path):
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0:
                columns = ", ".join(f"{name} {kind}" for name, kind in _COLUMNS.items())
                self._db.execute(f"CREATE TABLE IF NOT EXISTS servers ({columns})")
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                version = SCHEMA_VERSION
            while version in _UPGRADES:  # each upgrade and its version in one transaction
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.execute(_UPGRADES[version])
                    self._db.execute(f"PRAGMA user_version={version + 1}")
                version += 1
        except (OSError, sqlite3.Error) as exc:
            raise InventoryError(f"inventory {path} cannot be opened for writing: {exc}") from None
        if version != SCHEMA_VERSION:
            raise InventoryError(f"inventory {path} has schema version {version}, this agent knows {SCHEMA_VERSION}")
        self._lock = threading.Lock()

    def _write(self, sql: str, params: list) -> None:
        """One change, committed (the connection is in autocommit mode), or InventoryError with nothing changed."""
        with self._lock:
            try:
                self._db.execute(sql, params)
            except sqlite3.Error as exc:
                raise InventoryError(f"inventory {self.path} cannot be written ({exc}); nothing was changed") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def add(self, server: Server) -> None:
        row = _to_row(server)
        self._write(f"INSERT INTO servers ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                    list(row.values()))

    def update(self, server_id: str, **fields: Any) -> Server:
        unknown = set(fields) - set(_COLUMNS)
        if unknown:
            raise KeyError(f"unknown server fields {sorted(unknown)}")
        current = self.get(server_id)
        if current is None:
            raise KeyError(f"no server {server_id}")
        row = _to_row(Server(**{**dataclasses.asdict(current), **fields}))
        self._write(f"UPDATE servers SET {', '.join(f'{k} = ?' for k in fields)} WHERE id = ?",
                    [row[k] for k in fields] + [server_id])
        return self.get(server_id)

    def get(self, server_id: str) -> Server | None:
        with self._lock:
            cursor = self._db.execute("SELECT * FROM servers WHERE id = ?", (server_id,))
            row = cursor.fetchone()
            names = [d[0] for d in cursor.description]
        return _from_row(dict(zip(names, row, strict=True))) if row else None

    def list(self) -> list[Server]:
        with self._lock:
            cursor = self._db.execute("SELECT * FROM servers ORDER BY created_at, id")
            names = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
        return [_from_row(dict(zip(names, row, strict=True))) for row in rows]

    def delete(self, server_id: str) -> None:
        self._write("DELETE FROM servers WHERE id = ?", [server_id])


_JSON_OPTIONAL = ("migration", "spare")


def _to_row(server: Server) -> dict:
    row = dataclasses.asdict(server)
    row["config"] = json.dumps(row["config"], sort_keys=True)
    for key in _JSON_OPTIONAL:
        row[key] = None if row[key] is None else json.dumps(row[key], sort_keys=True)
    return row


def _from_row(row: dict) -> Server:
    row["config"] = json.loads(row["config"])
    for key in _JSON_OPTIONAL:
        row[key] = None if row[key] is None else json.loads(row[key])
    return Server(**row)
