"""A migration changes its server's record only through uno_agent.migration_record: begin, the journal before
each journalled step, then moved or stayed; over the fakes (tests/fakes.py)."""
from __future__ import annotations

import pytest
from fakes import World

from uno_agent.catalog import Flavor
from uno_agent.migration import MigrationError
from uno_agent.migration_record import MigrationRecord
from uno_agent.migration_steps import JOURNALLED

MONITOR = Flavor(id="monitor", name="monitor", kind="nf", host=None, snic=None, binary="monitor")


class Transitions(MigrationRecord):
    """The record's transitions, in order, as written."""

    def __init__(self, inventory):
        super().__init__(inventory)
        self.seen: list[str] = []

    def begin(self, server_id, journal):
        self.seen.append("begin")
        return super().begin(server_id, journal)

    def journal(self, server_id, **changes):
        self.seen.append(f"journal {changes['step']}" if "step" in changes else "journal new NF")
        return super().journal(server_id, **changes)

    def moved(self, server_id, j, at, spare):
        self.seen.append("moved")
        return super().moved(server_id, j, at, spare)

    def stayed(self, server_id, fault=None):
        self.seen.append("stayed" if fault is None else "stayed with fault")
        return super().stayed(server_id, fault)


def migrator_over(world: World, record: Transitions, **kwargs):
    migrator = world.migrator(**kwargs)
    migrator.record = record
    return migrator


def test_a_migration_begins_journals_each_step_and_moves_the_server(world):
    record = Transitions(world.inventory)
    before = world.server
    migrator_over(world, record).migrate(before, MONITOR, "snic0")
    journalled = [f"journal {s}" for s in JOURNALLED]
    assert record.seen == ["begin", journalled[0], "journal new NF", *journalled[1:], "moved"]
    after = world.server
    assert (after.side, after.status, after.migration, after.fault) == ("snic0", "ACTIVE", None, None)
    assert after.instance != before.instance and after.control != before.control and after.moved_at is not None


def test_a_failed_migration_leaves_the_server_where_it_was_with_its_fault(world):
    record = Transitions(world.inventory)
    before = world.server
    world.portmap.refuse = True
    with pytest.raises(MigrationError):
        migrator_over(world, record).migrate(before, MONITOR, "snic0")
    assert record.seen[-1] == "stayed with fault" and "moved" not in record.seen
    after = world.server
    assert (after.side, after.port, after.instance, after.status, after.migration) == \
        (before.side, before.port, before.instance, "ACTIVE", None)
    assert "remap" in after.fault
