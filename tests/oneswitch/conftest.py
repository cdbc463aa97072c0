"""Fixtures for OneSwitch integration tests: a platform, OneSwitch in front of it, and optionally the
os-ken L2 learning controller, on free ports; everything started is stopped afterwards."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from oneswitch_stack import Proc, build_jar, free_port, start_oneswitch, start_osken, wait_healthy


@dataclasses.dataclass
class Stack:
    platform: object
    oneswitch: Proc
    osken: Proc | None
    listen: int
    south: int
    rest: int
    restart: Callable[..., Proc] = None

    @property
    def target(self) -> str:
        return f"tcp:127.0.0.1:{self.listen}"


@pytest.fixture(scope="session")
def oneswitch_jar():
    """The jar, built if missing (make oneswitch builds it in `make test`)."""
    return build_jar()


@pytest.fixture
def oneswitch_stack(testbed_factory, oneswitch_jar, tmp_path):
    started: list[Proc] = []

    def make(controller: bool = True, oneswitch_args: tuple[str, ...] = (), ssl: bool = False,
             **platform_kwargs) -> Stack:
        """With `ssl`, the bridges reach OneSwitch over SSL with certificates of their own (ovs-pki)."""
        listen, south, rest_port = free_port(), free_port(), free_port()
        osken, ctl = None, None
        if controller:
            ctl = free_port()
            osken = start_osken(ctl, tmp_path / "osken.log")
            started.append(osken)
        platform = testbed_factory(controller=f"{'ssl' if ssl else 'tcp'}:127.0.0.1:{south}", **platform_kwargs)
        desc_path = f"{platform.description['state_dir']}/platform.json"

        def launch(first: bool = False) -> Proc:
            proc = start_oneswitch(desc_path, tmp_path / "oneswitch.log", listen=listen, south=south,
                                   rest_port=rest_port, controller=ctl, extra=list(oneswitch_args))
            started.append(proc)
            wait_healthy(proc, rest_port, controllers=1 if controller else 0, platform=platform if first else None)
            return proc

        stack = Stack(platform, launch(first=True), osken, listen, south, rest_port)

        def restart(kill: bool = False) -> Proc:
            """Stops OneSwitch (SIGKILL with `kill`, else SIGTERM) and starts it again with the same settings."""
            if kill:
                stack.oneswitch.popen.kill()
            stack.oneswitch.stop()
            stack.oneswitch = launch()
            return stack.oneswitch

        stack.restart = restart
        return stack

    yield make
    for proc in reversed(started):
        proc.stop()
        print(f"---- {proc.name} log (last lines) ----\n{proc.tail(60)}")
