"""The steps of a migration and the faults a test may inject at them: names only, shared by the
configuration (which validates `migration_faults`) and the migration executor (which runs them)."""
from __future__ import annotations

STEPS = ("start", "remap", "drain", "quiesce", "state", "release", "retire")
# Steps written to the journal before they run. Recovery redoes drain, quiesce and state from the
# drain whenever the port has moved (they are idempotent until the release), so they are not:
# each write would sit between the switch-over and the release, where held packets wait.
JOURNALLED = ("start", "remap", "release", "retire")
FAULTS = ("start=kill-new-nf", "state=corrupt-state", "remap=bad-port", "state=slow-state")
# the agent itself dies (SIGKILL) as a step begins: its restart must finish or undo the migration
CRASH_FAULTS = tuple(f"{step}=crash-agent" for step in STEPS)
