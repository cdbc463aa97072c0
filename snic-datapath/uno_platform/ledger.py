"""An append-only record of what `up` created, so that `down` undoes exactly that.

Each object is written (and fsync'ed) as one JSON line *before* `up` moves on, so
after a crash or a failed `up` the ledger lists everything that may exist.
"""
from __future__ import annotations

import json
import os
import pathlib


class Ledger:
    """Created objects in creation order: {"kind": ..., ...fields}."""

    FILE = "ledger.jsonl"

    def __init__(self, state_dir: pathlib.Path):
        self.path = state_dir / self.FILE

    def record(self, kind: str, **fields) -> None:
        line = json.dumps({"kind": kind, **fields}, sort_keys=True)
        with open(self.path, "a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def entries(self) -> list[dict]:
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return []
        entries = []
        for line in text.splitlines():
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line torn by a crash: the objects before it are still listed
        return entries
