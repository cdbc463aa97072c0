"""pytest plugin: emulated platforms for tests.

    pytest_plugins = ["uno_platform.testing"]

    def test_something(testbed_factory):
        platform = testbed_factory(vms=2, pcie_gbps=1)   # unique prefix, torn down after the test
        remote = testbed_factory("remote", mgmt_subnet="192.168.101.0/24")   # the sNIC a machine of its own

Every platform a test brings up is taken down when the test ends, and the test
fails if anything of it could not be removed.

`pytest --cpu-hog` runs the whole session with one core kept busy by an unrelated process in its
own cgroup (`uno_platform.cpu_hog.CpuHog`): a real server is never quiet.

Tests that pytest-xdist runs side by side take turns where they must (locks in /run/lock): every test
holds the machine lock shared, a test marked `alone` holds it exclusive, and a remote testbed holds the
management-address lock from its bring-up to the test's end (its host addresses are in the root
namespace, where two testbeds on one subnet would clash).
"""
from __future__ import annotations

import fcntl
import os
import secrets
import string

import pytest

import uno_platform
from uno_platform.base import Platform
from uno_platform.cpu_hog import CpuHog
from uno_platform.spec import TestbedSpec

LOCK_DIR = "/run/lock"


def pytest_addoption(parser):
    parser.addoption("--cpu-hog", action="store_true",
                     help="keep one core busy with an unrelated process (own cgroup) for the whole session")


def pytest_configure(config):
    config.addinivalue_line("markers", "alone: runs with no other test beside it (pytest-xdist workers wait)")


def pytest_collection_modifyitems(config, items):
    """Tests marked `alone` go last, together: spread among the others, each waited for the test in progress
    on the other worker (up to 35 s), with one core idle meanwhile."""
    items.sort(key=lambda item: item.get_closest_marker("alone") is not None)   # stable: the rest keep their order


def _lock(name: str, mode: int) -> int:
    """A descriptor holding lock `name` (shared or exclusive), blocking until it is granted; closing the
    descriptor releases it. The test's timeout bounds the wait."""
    os.makedirs(LOCK_DIR, exist_ok=True)   # /run/lock is systemd's; a bare container may lack it
    fd = os.open(f"{LOCK_DIR}/uno-tests-{name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, mode)
    return fd


@pytest.fixture(autouse=True)
def _machine_turn(request):
    """The machine lock, shared or, for a test marked `alone`, exclusive: taken before any other lock a test
    takes, so two workers never wait for each other."""
    fd = _lock("machine", fcntl.LOCK_EX if request.node.get_closest_marker("alone") else fcntl.LOCK_SH)
    yield
    os.close(fd)


@pytest.fixture(scope="session", autouse=True)
def cpu_hog(request):
    """The session's CPU hog with --cpu-hog, else None."""
    if not request.config.getoption("--cpu-hog"):
        yield None
        return
    with CpuHog() as hog:
        yield hog


def unique_prefix() -> str:
    """A short prefix that no other test's platform uses: 't' + 4 random chars + '-'."""
    alphabet = string.ascii_lowercase + string.digits
    return "t" + "".join(secrets.choice(alphabet) for _ in range(4)) + "-"


@pytest.fixture
def testbed_factory():
    if os.geteuid() != 0:
        pytest.fail("the emulated platform needs root (network namespaces, cgroups, OVS)")
    made: list[str] = []
    held: list[int] = []

    def make(profile: str = "emulated", **kwargs) -> Platform:
        spec = TestbedSpec(prefix=kwargs.pop("prefix", None) or unique_prefix(), **kwargs)
        if profile == "remote" and not held:
            held.append(_lock("mgmt-addresses", fcntl.LOCK_EX))
        made.append(spec.prefix)
        return uno_platform.up(spec, profile)

    yield make
    problems = []
    for prefix in reversed(made):
        problems += uno_platform.down(prefix)
    for fd in held:
        os.close(fd)
    assert not problems, f"tear-down problems: {problems}"


@pytest.fixture
def testbed(testbed_factory) -> Platform:
    """A default platform: one sNIC with one wire port, one VM."""
    return testbed_factory()
