"""Injected faults fire in the step they name, once, and only through the parts the injector wraps."""
from __future__ import annotations

import pytest

from uno_agent.faults import FaultInjector, corrupted


class _Control:
    def state_get(self) -> bytes:
        return b"UNOS" + b"\x00" * 8

    def stats(self) -> dict:
        return {"rx": 1}


def test_a_fault_fires_once_in_its_step_and_nowhere_else():
    injector = FaultInjector({"state": "corrupt-state"})
    control = injector.nf_control(lambda path: _Control())("/run/nf.sock")
    assert control.stats() == {"rx": 1}, "the rest of the part is the part's own"
    injector.on_step("drain")
    assert control.state_get().startswith(b"UNOS"), "not in another step"
    injector.on_step("state")
    assert control.state_get() == corrupted(b"UNOS" + b"\x00" * 8)
    assert control.state_get().startswith(b"UNOS"), "once"


def test_unknown_faults_are_refused():
    with pytest.raises(ValueError, match="unknown migration faults"):
        FaultInjector({"state": "bad-port"})
