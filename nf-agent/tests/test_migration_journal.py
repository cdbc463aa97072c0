"""The migration journal as a typed record, and recovery as a pure decision: for every journalled step and
every place OneSwitch may say the port is, finish (with which steps) or undo."""
from __future__ import annotations

import pytest

from uno_agent.migration_steps import JOURNALLED, STEPS, Journal, JournalError, recovery_steps
from uno_agent.port_names import free_nf_port

NEW = ("snic0", "nfp1")


def journal(step: str) -> Journal:
    return Journal(target="snic0", new_port="nfp1", new_id="nf1-1", step=step)


@pytest.mark.parametrize("step", JOURNALLED)
def test_the_port_on_the_new_nf_finishes_from_the_drain_at_the_earliest(step):
    steps = recovery_steps(journal(step), NEW, released=False)
    first = max(STEPS.index(step), STEPS.index("drain"))
    assert steps == STEPS[first:] and steps[-1] == "retire"
    assert "state" in steps or STEPS.index(step) > STEPS.index("state"), "the new NF gets the final state"


@pytest.mark.parametrize("step", JOURNALLED)
def test_a_released_new_nf_only_retires_the_old_one(step):
    """Its state moved on since the release: the old NF's must not replace it."""
    assert recovery_steps(journal(step), NEW, released=True) == ("retire",)


@pytest.mark.parametrize("step", JOURNALLED)
@pytest.mark.parametrize("mapped", [("host", "nfh0"), ("snic0", "nfp0"), None])
@pytest.mark.parametrize("released", [False, True])
def test_the_port_anywhere_else_undoes_the_migration(step, mapped, released):
    assert recovery_steps(journal(step), mapped, released) is None


def test_a_rollback_remaps_back_only_once_the_remap_may_have_run():
    assert [s for s in STEPS if journal(s).moved()] == list(STEPS[STEPS.index("remap"):])


def test_the_record_round_trips_and_a_damaged_one_is_refused():
    j = Journal(target="host", new_port="nfp2", new_id="x-1", step="release", new_pid=7, new_control="/run/x.sock")
    assert Journal.of(j.to_record()) == j
    for bad in ({"target": "host", "new_port": "p"}, {**j.to_record(), "surprise": 1}, [1, 2],
                {**j.to_record(), "step": "teleport"}):
        with pytest.raises(JournalError):
            Journal.of(bad)


def test_a_port_name_is_free_of_servers_and_of_migrations_under_way(world):
    assert free_nf_port(world.inventory, "p") == "pn0"
    world.inventory.update("nf1", port="pn0")
    world.migrator().begin(world.server, "snic0")  # reserves a new port for the move
    assert world.server.migration["new_port"] == "nfp0"
    world.inventory.update("nf1", migration={**world.server.migration, "new_port": "pn1"})
    assert free_nf_port(world.inventory, "p") == "pn2"
