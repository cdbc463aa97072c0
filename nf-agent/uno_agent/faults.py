"""Failures injected into migrations for tests (the agent's `migration_faults`), from outside the executor.

The migration code has no fault branches: `FaultInjector` hooks each step's start and wraps the parts
the migration drives (the launcher, OneSwitch's port map, the NFs' control channels), so that a real
failure happens in the step named:

  start=kill-new-nf      the new NF is killed as soon as it runs (SIGKILL)
  remap=bad-port         OneSwitch is asked to remap to a port that does not exist
  state=corrupt-state    the exported state is damaged, so the new NF refuses it
  state=slow-state       the state step starts 1.5 hold bounds late (a starved side)
  STEP=crash-agent       the agent itself is SIGKILLed as the step begins
  state=kill-snic-daemon every remote sNIC's daemon is SIGKILLed as the step begins (its init restarts it)
  state=cut-mgmt-link    every remote sNIC's management link goes down as the step begins, for MGMT_CUT_S

Each fault fires once, in the step it names, and only in a migration the agent runs (never in the
recovery after a restart). Never configured in production.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

from uno_agent.migration import HOLD_BOUND_S
from uno_agent.migration_steps import ALL_FAULTS, REMOTE_FAULTS

MGMT_CUT_S = 4.0      # how long cut-mgmt-link keeps the link down: longer than an NF request's timeout across it
                      # (remote_launcher.REMOTE_CONTROL_TIMEOUT_S), so the request under way fails


def corrupted(blob: bytes) -> bytes:
    """The state with its format magic inverted: an import the new NF must refuse."""
    return bytes(b ^ 0xFF for b in blob[:4]) + blob[4:]


class _Delegate:
    """Everything `inner` has, but what the subclass overrides."""

    def __init__(self, inner, injector: FaultInjector):
        self._inner, self._injector = inner, injector

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _Launcher(_Delegate):
    def start_nf(self, instance_id: str, binary: str, side: str, *args, **kwargs):
        instance = self._inner.start_nf(instance_id, binary, side, *args, **kwargs)
        if self._injector.fire("kill-new-nf"):
            self._inner.crash(side, instance)
        return instance


class _PortMapper(_Delegate):
    def remap(self, vport: int, switch_id: str, port: str):
        if self._injector.fire("bad-port"):
            port = f"{port}-missing"
        return self._inner.remap(vport, switch_id, port)


class _Control(_Delegate):
    def state_get(self, *args, **kwargs) -> bytes:
        blob = self._inner.state_get(*args, **kwargs)
        return corrupted(blob) if self._injector.fire("corrupt-state") else blob


class FaultInjector:
    """Injects `faults` (step -> fault, as the configuration's `migration_faults`; each "step=fault" one of
    ALL_FAULTS) into the migrations of a Migrator built with `on_step` and the parts this wraps."""

    def __init__(self, faults: dict[str, str], platform=None):
        """`platform`: the remote platform whose sNICs REMOTE_FAULTS act on."""
        given = {f"{step}={fault}" for step, fault in faults.items()}
        if given - set(ALL_FAULTS):
            raise ValueError(f"unknown migration faults {sorted(given - set(ALL_FAULTS))} "
                             f"(have: {', '.join(ALL_FAULTS)})")
        self.snics = [sw["id"] for sw in platform.description["switches"] if "machine" in sw] if platform else []
        if given & set(REMOTE_FAULTS) and not self.snics:
            raise ValueError(f"migration faults {sorted(given & set(REMOTE_FAULTS))} need the remote platform profile")
        self.platform = platform
        self.faults = dict(faults)
        self._armed: str | None = None

    def on_step(self, step: str) -> None:
        """A step of a migration begins: its fault is armed (or, for the agent's own death, happens now)."""
        fault = self.faults.get(step)
        if fault == "crash-agent":
            os.kill(os.getpid(), signal.SIGKILL)
        if fault == "slow-state":
            time.sleep(HOLD_BOUND_S * 1.5)
        if fault == "kill-snic-daemon":
            for sw in self.snics:
                self.platform.kill_daemon(sw)
        if fault == "cut-mgmt-link":
            for sw in self.snics:
                self.platform.set_mgmt_link(sw, False)
                threading.Timer(MGMT_CUT_S, self.platform.set_mgmt_link, (sw, True)).start()
        self._armed = fault

    def fire(self, fault: str) -> bool:
        """Whether `fault` is armed now; it fires once."""
        if self._armed == fault:
            self._armed = None
            return True
        return False

    def launcher(self, launcher):
        return _Launcher(launcher, self)

    def portmap(self, portmap):
        return _PortMapper(portmap, self)

    def nf_control(self, factory: Callable) -> Callable:
        return lambda path: _Control(factory(path), self)
