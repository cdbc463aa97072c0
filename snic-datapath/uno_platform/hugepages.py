"""2 MiB hugepages for DPDK: reserve what a run needs, give back exactly what it reserved.

The pool is the kernel's (/sys/kernel/mm/hugepages): several users may share it, so a
reservation only ever grows it by the pages missing, and its release shrinks it by those
pages again, never below what others hold.
"""
from __future__ import annotations

import contextlib
import pathlib
import time

from uno_platform.errors import PlatformError

POOL = pathlib.Path("/sys/kernel/mm/hugepages/hugepages-2048kB")
PAGE_BYTES = 2 << 20


def _read(name: str) -> int:
    return int((POOL / name).read_text())


def _write(name: str, value: int) -> None:
    (POOL / name).write_text(str(value))


def free_pages() -> int:
    try:
        return _read("free_hugepages")
    except OSError:
        return 0


def reserve(pages: int) -> int:
    """Grow the pool until `pages` pages are free. Returns the pages added (0 if enough were free).

    Raises PlatformError, having given back what it added, when the kernel cannot find them
    (memory too fragmented or too small) or the pool cannot be written (not root, no hugepages)."""
    if pages <= 0:
        return 0
    try:
        free, total = _read("free_hugepages"), _read("nr_hugepages")
        if free >= pages:
            return 0
        _write("nr_hugepages", total + pages - free)
        added = _read("nr_hugepages") - total
    except OSError as exc:
        raise PlatformError(f"cannot reserve {pages} hugepages of 2 MiB: {exc.strerror or exc}") from None
    if free_pages() < pages:
        release(added)
        raise PlatformError(f"cannot reserve {pages} hugepages of 2 MiB: the kernel found only "
                            f"{free + max(added, 0)} free")
    return added


def release(added: int, settle: float = 5.0) -> None:
    """Give back `added` pages that `reserve` added.

    Pages still in use stay with their users as surplus pages, which the kernel frees when
    they are unmapped; a process that was just killed may still be unmapping them, so this
    waits up to `settle` s for the pool to come down."""
    if added <= 0:
        return
    try:
        target = max(0, _read("nr_hugepages") - added)
        _write("nr_hugepages", target)
        deadline = time.monotonic() + settle
        while _read("nr_hugepages") > target and time.monotonic() < deadline:
            time.sleep(0.05)
    except OSError as exc:
        raise PlatformError(f"cannot release {added} hugepages: {exc.strerror or exc}") from None


@contextlib.contextmanager
def reserved(pages: int):
    """`pages` free hugepages for the duration of the block."""
    added = reserve(pages)
    try:
        yield
    finally:
        release(added)


def unavailable(pages: int) -> str | None:
    """Why `pages` hugepages cannot be had here, in one line, or None if they can (tried and given back)."""
    try:
        with reserved(pages):
            return None
    except PlatformError as exc:
        return str(exc)
