"""A migration's records and decisions, as data and pure functions: the step names and the faults a test
may inject at them (the configuration validates `migration_faults` against them), the journal a
migration keeps in the inventory, and what recovery and rollback do given a journal and where
OneSwitch says the port is. The executor (migration.py) carries the decisions out."""
from __future__ import annotations

import dataclasses

STEPS = ("start", "remap", "drain", "quiesce", "state", "release", "retire")
# Steps written to the journal before they run. Recovery redoes drain, quiesce and state from the
# drain whenever the port has moved (they are idempotent until the release), so they are not: each
# write would sit between the switch-over and the release, where held packets wait (a write costs
# milliseconds). Nor is the release: only it ends the new NF's hold, so the new NF says whether it ran.
JOURNALLED = ("start", "remap", "retire")
FAULTS = ("start=kill-new-nf", "state=corrupt-state", "remap=bad-port", "state=slow-state")
# faults of a remote sNIC (the remote platform profile): its daemon crashes, its management link goes down
REMOTE_FAULTS = ("state=kill-snic-daemon", "state=cut-mgmt-link")
# the agent itself dies (SIGKILL) as a step begins: its restart must finish or undo the migration
CRASH_FAULTS = tuple(f"{step}=crash-agent" for step in STEPS)
ALL_FAULTS = FAULTS + CRASH_FAULTS + REMOTE_FAULTS


class JournalError(ValueError):
    """A stored journal is not one this agent wrote (a damaged inventory)."""


@dataclasses.dataclass(frozen=True)
class Journal:
    """A migration under way, as stored in the server's record before each journalled step.

    `step` is the last journalled step begun; the new NF's fields are known once it started."""

    target: str
    new_port: str
    new_id: str
    step: str = "start"
    new_pid: int | None = None
    new_pid_start: int | None = None
    new_control: str | None = None
    new_netns: str | None = None

    def __post_init__(self):
        if self.step not in STEPS:
            raise JournalError(f"journal step {self.step!r} is not one of {', '.join(STEPS)}")

    @classmethod
    def of(cls, record: dict) -> Journal:
        """The journal a server record holds; JournalError when it is not one."""
        if not isinstance(record, dict):
            raise JournalError(f"a journal is an object, not {type(record).__name__}")
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = set(record) - fields
        missing = {"target", "new_port", "new_id"} - set(record)
        if unknown or missing:
            raise JournalError(f"journal {record}: unknown {sorted(unknown)}, missing {sorted(missing)}")
        return cls(**record)

    def to_record(self) -> dict:
        return dataclasses.asdict(self)

    def moved(self) -> bool:
        """Whether the remap may have taken effect (it is journalled before it runs)."""
        return STEPS.index(self.step) >= STEPS.index("remap")


def recovery_steps(journal: Journal, mapped: tuple[str, str] | None, released: bool) -> tuple[str, ...] | None:
    """What a restarted agent does: the steps that finish the migration when OneSwitch maps the port to the
    new NF (from where the journal stopped, but from the drain at the earliest, so that the new NF gets
    the old NF's final state; once the new NF was `released`, only what follows the release: its state
    has moved on since), or None: undo it (the port never moved, or moved back)."""
    if mapped != (journal.target, journal.new_port):
        return None
    first = STEPS.index("retire") if released else STEPS.index("drain")
    return STEPS[max(STEPS.index(journal.step), first):]
