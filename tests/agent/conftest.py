"""The whole UNO stack for end-to-end tests: platform, OneSwitch, os-ken (service chains), uno-agent.

Everything a test starts is stopped when it ends: the agent's servers are deleted through its API,
the agent, OneSwitch and the controller are stopped by their handles, then the platform goes.
"""
from __future__ import annotations

import pytest

from uno_harness.agent import Stack, platform_args


@pytest.fixture
def uno_stack(testbed_factory, tmp_path):
    started: list[Stack] = []

    def make(agent_config: dict | None = None, profile: str = "emulated", **platform_kwargs) -> Stack:
        def platform(controller: str):
            return testbed_factory(profile, **platform_args(profile, controller), **platform_kwargs)

        stack = Stack(tmp_path, platform, agent_config)
        started.append(stack)
        return stack

    yield make
    for stack in reversed(started):
        stack.stop()
        print(stack.logs())
