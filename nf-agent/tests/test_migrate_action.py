"""The migrate action as Nova's: accepted at once (the server MIGRATING), carried out on the agent's
migration thread, the result in the server's status and fault; over the fakes (tests/fakes.py)."""
from __future__ import annotations

import threading

import pytest
from fakes import FakePlatform, World

from uno_agent.catalog import Cost, Flavor
from uno_agent.errors import Conflict
from uno_agent.service import AgentService

MONITOR = Flavor(id="monitor", name="monitor", kind="nf", host=Cost(0.1, 0.0, 16), snic=Cost(0.1, 0.0, 16),
                 binary="monitor")


def service_over(world: World, **migrator_kwargs) -> AgentService:
    return AgentService(platform=FakePlatform(), inventory=world.inventory, flavors={"monitor": MONITOR},
                        launcher=world.launcher, portmap=world.portmap, placer=None, traffic=None, flows_target="",
                        migrator=world.migrator(**migrator_kwargs))


def test_the_action_answers_at_once_and_the_migration_runs_behind_it(world):
    go = threading.Event()
    service = service_over(world, on_step=lambda step: go.wait(5) if step == "start" else None)
    started = service.migrate("nf1", "snic0", trigger="test")
    assert started.status == "MIGRATING" and started.side == "host"
    with pytest.raises(Conflict, match="MIGRATING"):
        service.migrate("nf1", "host", trigger="test")
    go.set()
    service.close()  # waits for the migration under way
    world.assert_lossless_and_running("snic0")
    assert service.counters["migrations"] == 1 and world.server.fault is None


def test_a_migration_that_fails_leaves_the_server_active_with_a_fault(world):
    world.portmap.refuse = True
    service = service_over(world)
    updates = []
    update = world.inventory.update
    world.inventory.update = lambda server_id, **fields: updates.append(fields) or update(server_id, **fields)
    assert service.migrate("nf1", "snic0", trigger="test").status == "MIGRATING"
    service.close()
    assert "OneSwitch refused" in world.server.fault
    back = [u for u in updates if u.get("status") == "ACTIVE"]
    assert back and all("OneSwitch refused" in u.get("fault", "") for u in back), \
        "whoever sees the server ACTIVE again sees why at once"
    assert service.counters["migration_failures"] == 1
    world.assert_lossless_and_running("host")


def test_a_restart_finishes_a_journalled_migration_and_refuses_a_damaged_journal(world):
    service = service_over(world)
    world.inventory.update("nf1", status="MIGRATING", migration={"target": "snic0", "teleport": True})
    report = service.recover()
    assert report["dead"] == ["mon"]
    assert world.server.status == "ERROR" and "journal is damaged" in world.server.fault

    world.inventory.update("nf1", status="MIGRATING", migration=None, fault=None)
    assert service.recover()["adopted"] == ["mon"], "MIGRATING with nothing journalled: nothing had started"
    world.assert_lossless_and_running("host")


class _Died(BaseException):
    """The agent stopped at a step (as SIGKILL would stop it): nothing after it runs."""


def test_a_restart_with_a_side_out_of_reach_leaves_the_migration_and_one_whose_nfs_died_is_reported(world):
    """Recovery neither undoes a migration blind nor marks its NF dead while one of its sides cannot be asked (a
    remote sNIC's link down); once in reach it recovers it. A migration whose NF died meanwhile is reported."""
    def die(step):
        if step == "drain":
            raise _Died(step)

    with pytest.raises(_Died):
        world.migrator(on_step=die).migrate(world.server, MONITOR, "snic0")
    service = service_over(world)
    world.launcher.out_of_reach.add("snic0")
    assert service.recover()["unreachable"] == ["mon"]
    assert world.server.status == "MIGRATING" and world.server.migration
    world.launcher.out_of_reach.clear()
    assert service.recover()["adopted"] == ["mon"]
    world.assert_lossless_and_running("snic0")

    with pytest.raises(_Died):
        world.migrator(on_step=die).migrate(world.server, MONITOR, "host")
    world.live_nf().alive = False                    # the old NF died while the agent was down
    assert service.recover()["dead"] == ["mon"]
    assert world.server.status == "ERROR" and "stopped answering" in world.server.fault
