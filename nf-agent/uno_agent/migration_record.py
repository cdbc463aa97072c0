"""A migrating server's inventory record: the only changes a migration makes to it.

The migrator does not hold the inventory. It moves a server's record through these transitions,
each one write: `begin` (MIGRATING, with a journal), `journal` (the journal grows before each
journalled step), then `moved` (the new instance is the server's) or `stayed` (the old one stays,
with the fault if there was one). The service owns every other write.
"""
from __future__ import annotations

import dataclasses

from uno_agent.inventory import Inventory, Server
from uno_agent.migration_steps import Journal


class MigrationRecord:
    def __init__(self, inventory: Inventory):
        self._inventory = inventory

    def get(self, server_id: str) -> Server:
        return self._inventory.get(server_id)

    def begin(self, server_id: str, journal: Journal) -> Server:
        return self._inventory.update(server_id, status="MIGRATING", migration=journal.to_record())

    def journal(self, server_id: str, **changes) -> Server:
        """Adds `changes` to the journal as stored, and returns the fresh record."""
        current = Journal.of(self.get(server_id).migration)
        return self._inventory.update(server_id, migration=dataclasses.replace(current, **changes).to_record())

    def moved(self, server_id: str, j: Journal, at: float, spare: dict) -> Server:
        """The new instance journal `j` names is the server's now, on the target side; `spare` is the port it
        left, kept plugged."""
        return self._inventory.update(
            server_id, status="ACTIVE", side=j.target, port=j.new_port, instance=j.new_id, pid=j.new_pid,
            pid_start=j.new_pid_start, control=j.new_control, netns=j.new_netns, moved_at=at, migration=None,
            fault=None, spare=spare)

    def stayed(self, server_id: str, fault: str | None = None) -> Server:
        """The migration is over and the server runs where it was; `fault` says why, if it failed."""
        return self._inventory.update(server_id, status="ACTIVE", migration=None,
                                      **({"fault": fault} if fault is not None else {}))
