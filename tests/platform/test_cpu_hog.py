"""The CPU hog that tests and benchmarks run under (`pytest --cpu-hog`): it really holds a core, in its own cgroup."""
from __future__ import annotations

import time

import pytest

from uno_platform.cpu_hog import CpuHog

pytestmark = pytest.mark.platform


def test_the_hog_holds_a_core_in_its_own_cgroup_and_leaves_nothing():
    with CpuHog("load-test") as hog:
        pids = hog.cgroup.pids()
        assert hog.proc.pid in pids
        time.sleep(1.0)
        used = hog.cpu_seconds()
    # one core's worth of wall time, give or take what the other tests and the scheduler take
    assert used >= 0.5, used
    assert not any(path.exists() for path in hog.cgroup.paths)
    assert hog.proc is None
