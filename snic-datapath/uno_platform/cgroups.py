"""CPU limits and CPU accounting for one side of the platform (cgroup v1 `cpu` + `cpuacct`).

A side's cgroup lives at <mount>/uno/<name> in both hierarchies: `cpu` carries the
CFS quota (the sNIC's capacity in cores), `cpuacct` the CPU time used by everything
started in it. cgroup v2-only machines are not supported yet: `check_available`
says so instead of failing half-way.
"""
from __future__ import annotations

import errno
import os
import pathlib

from uno_platform.errors import PlatformError

ROOT = pathlib.Path("/sys/fs/cgroup")
PARENT = "uno"
PERIOD_US = 100_000
#: cpu.shares per guaranteed core of a side: 8 times a default task group's weight (1024) per core, so that a
#: sibling that would use the whole machine (an unrelated load in /uno, as the tests start it) cannot starve a
#: sNIC below its quota, nor the host's data path (its switch and NFs) below one core. Shares are relative among
#: siblings only: against load outside /uno, the uno group as a whole has the default weight. What this
#: emulation cannot give: cores of the sNIC's own.
SHARES_PER_CORE = 8 * 1024
#: What the host's data path is weighted for: one core, as deployments reserve cores for the virtual switch.
HOST_GUARANTEED_CORES = 1.0


def check_available(root: pathlib.Path = ROOT) -> None:
    for controller in ("cpu", "cpuacct"):
        if not (root / controller / "cgroup.procs").exists():
            raise PlatformError(f"cgroup v1 controller '{controller}' is not mounted at "
                                f"{root / controller} (cgroup v2-only hosts are not supported yet)")


class SideCgroup:
    """The pair of v1 cgroups (cpu, cpuacct) of one platform side."""

    def __init__(self, cpu: str, cpuacct: str):
        self.cpu = pathlib.Path(cpu)
        self.cpuacct = pathlib.Path(cpuacct)

    @classmethod
    def for_name(cls, name: str, root: pathlib.Path = ROOT) -> SideCgroup:
        return cls(str(root / "cpu" / PARENT / name), str(root / "cpuacct" / PARENT / name))

    @property
    def paths(self) -> tuple[pathlib.Path, pathlib.Path]:
        return self.cpu, self.cpuacct

    def create(self, cores: float | None, guaranteed: float | None = None) -> None:
        """Create both cgroups; with `cores`, cap the side at that many CPUs; weight it for `guaranteed` cores
        (by default as many as it is capped at) against its siblings."""
        for path in self.paths:
            path.mkdir(parents=True)
        if cores is not None:
            (self.cpu / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (self.cpu / "cpu.cfs_quota_us").write_text(str(round(cores * PERIOD_US)))
        weight = guaranteed if guaranteed is not None else cores
        if weight is not None:
            (self.cpu / "cpu.shares").write_text(str(max(2, round(weight * SHARES_PER_CORE))))

    def join(self, pid: int) -> None:
        """Move a process (all its threads) into both cgroups."""
        for path in self.paths:
            (path / "cgroup.procs").write_text(str(pid))

    def pids(self) -> set[int]:
        found: set[int] = set()
        for path in self.paths:
            try:
                found |= {int(p) for p in (path / "cgroup.procs").read_text().split()}
            except FileNotFoundError:
                pass
        return found

    def usage_seconds(self) -> float:
        """CPU time (user + system) used by every process that ever ran in the side."""
        return int((self.cpuacct / "cpuacct.usage").read_text()) / 1e9

    def quota_cores(self) -> float | None:
        quota = int((self.cpu / "cpu.cfs_quota_us").read_text())
        if quota < 0:
            return None
        return quota / int((self.cpu / "cpu.cfs_period_us").read_text())

    def remove(self) -> None:
        """Remove both cgroups; they must be empty. Missing ones are fine."""
        for path in self.paths:
            try:
                path.rmdir()
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise PlatformError(f"cannot remove cgroup {path}: {os.strerror(exc.errno)}") from None
            _remove_empty_parent(path.parent)


def _remove_empty_parent(parent: pathlib.Path) -> None:
    """Drop the shared `uno` parent once the last testbed is gone (another may be using it)."""
    try:
        parent.rmdir()
    except OSError as exc:
        if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY, errno.ENOENT):
            raise


def existing_names(root: pathlib.Path = ROOT) -> list[str]:
    """Names of the side cgroups that exist in either hierarchy."""
    found: set[str] = set()
    for controller in ("cpu", "cpuacct"):
        parent = root / controller / PARENT
        if parent.is_dir():
            found |= {p.name for p in parent.iterdir() if p.is_dir()}
    return sorted(found)


def preexec_join(cgroup: SideCgroup):
    """A subprocess `preexec_fn` that moves the child into `cgroup` before it execs."""
    def join() -> None:
        cgroup.join(os.getpid())
    return join
