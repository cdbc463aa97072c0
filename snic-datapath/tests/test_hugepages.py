"""What the hugepage reservation decides, against a model of the kernel's pool (the real pool is exercised by
tests/platform/test_dpdk_platform.py)."""
import pytest

from uno_platform import hugepages
from uno_platform.errors import PlatformError


class FakePool:
    """The kernel's 2 MiB pool: growing it finds at most `grantable` more pages; shrinking frees only free ones,
    and pages in use beyond the size asked for are freed once unmapped. `exiting` pages belong to a killed
    process: they are unmapped a couple of reads after the pool was shrunk."""

    def __init__(self, total: int, used: int, grantable: int):
        self.total, self.used, self.grantable = total, used, grantable
        self.asked, self.exiting, self.reads = None, 0, 0

    def read(self, name: str) -> int:
        self.reads += 1
        if self.exiting and self.reads > 2:
            self.used -= self.exiting
            self.exiting = 0
            self.write("nr_hugepages", self.asked)
        return {"nr_hugepages": self.total, "free_hugepages": self.total - self.used}[name]

    def write(self, name: str, value: int) -> None:
        assert name == "nr_hugepages"
        self.asked, self.reads = value, 0
        if value > self.total:
            granted = min(value - self.total, self.grantable)
            self.grantable -= granted
            self.total += granted
        else:
            shrunk = max(value, self.used)
            self.grantable += self.total - shrunk
            self.total = shrunk


@pytest.fixture
def pool(monkeypatch):
    def make(**kwargs) -> FakePool:
        fake = FakePool(**kwargs)
        monkeypatch.setattr(hugepages, "_read", fake.read)
        monkeypatch.setattr(hugepages, "_write", fake.write)
        return fake
    return make


def test_only_the_missing_pages_are_added_and_exactly_those_given_back(pool):
    fake = pool(total=100, used=70, grantable=1000)
    added = hugepages.reserve(50)
    assert added == 20 and fake.total == 120
    fake.used += 50          # the run takes them
    fake.used -= 50
    hugepages.release(added)
    assert fake.total == 100


def test_enough_free_pages_are_left_alone(pool):
    fake = pool(total=100, used=0, grantable=1000)
    assert hugepages.reserve(64) == 0
    hugepages.release(0)
    assert fake.total == 100


def test_a_kernel_short_of_memory_gets_its_pages_back_and_the_reason_is_said(pool):
    fake = pool(total=10, used=0, grantable=5)
    with pytest.raises(PlatformError, match="found only 15 free"):
        hugepages.reserve(40)
    assert fake.total == 10
    assert "found only 15 free" in hugepages.unavailable(40)


def test_release_never_takes_pages_another_user_holds(pool):
    fake = pool(total=100, used=0, grantable=1000)
    added = hugepages.reserve(150)
    fake.used = 140          # another user took some of the pool meanwhile
    hugepages.release(added, settle=0.1)
    assert fake.total == 140


def test_release_waits_for_the_pages_of_a_process_still_exiting(pool):
    fake = pool(total=0, used=0, grantable=1000)
    added = hugepages.reserve(191)
    fake.used = fake.exiting = 191   # the switch was killed; the kernel has not unmapped its pages yet
    hugepages.release(added)
    assert fake.total == 0 and fake.grantable == 1000


def test_the_block_form_gives_back_what_it_took_even_on_error(pool):
    fake = pool(total=0, used=0, grantable=1000)
    with pytest.raises(RuntimeError), hugepages.reserved(32):
        assert fake.total == 32
        raise RuntimeError
    assert fake.total == 0
