"""Where a run's lost packets went: drop counters sampled while traffic runs, and the verdict on them.

Counters live in many places (the platform's shapers, ports, datapaths and interfaces; each NF's ring, hold
buffer and sends; the endpoints' sockets), and some disappear mid-run: a migration removes the old NF's
ports. So the counters are sampled every few seconds and only their increases are summed; a counter that went
down was created again (a port name reused) and counts from zero.

A packet lost in an NF's hold buffer is lost by a migration, which UNO promises never happens. Every other
counted drop is a place that ran out of room (a starved switch or NF, a shaped link); a lost packet that no
counter explains is unattributed. The demo fails on either of the two.
"""
from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable

from uno_platform import losses

log = logging.getLogger(__name__)

MIGRATION_PLACES = ("hold",)      # NF counters that only a migration can raise


def flatten(agent_losses: dict) -> dict[str, int]:
    """The agent's /v2.1/uno/losses as one counter per place: the platform's places, and "NF <name> <place>"
    for each NF whose live instance answered (the others are left out of this sample)."""
    found = losses.places(agent_losses["platform"]) if agent_losses.get("platform") else {}
    for nf in agent_losses["nfs"].values():
        if nf["live_counted"]:
            found.update({f"NF {nf['name']} {place}": nf[place] for place in ("ring", "hold", "send")})
    return found


class Accumulator:
    """Sums the increases of counters read in successive samples."""

    def __init__(self):
        self.last: dict[str, int] = {}
        self.increase: dict[str, int] = {}

    def add(self, sample: dict[str, int], *, first: bool = False) -> None:
        """Count `sample` against the last one; the `first` sample is only the baseline."""
        for place, value in sample.items():
            before = self.last.get(place)
            self.last[place] = value
            grown = value if before is None or value < before else value - before
            if grown and not first:
                self.increase[place] = self.increase.get(place, 0) + grown


class Sampler:
    """Samples `read()` every `interval` seconds in a thread, from `start()` to `stop()`.

    The first sample is the baseline: drops counted before it are not the run's. A counter first seen later
    started during the run and counts whole."""

    def __init__(self, read: Callable[[], dict[str, int]], interval: float = 2.0):
        self.read, self.interval = read, interval
        self.counts = Accumulator()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self.counts.add(self.read(), first=True)
        self._thread.start()

    def stop(self) -> dict[str, int]:
        """The increase of every counter over the run, by place (places with none are left out)."""
        self._stop.set()
        self._thread.join()
        self._sample()
        return dict(self.counts.increase)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self._sample()

    def _sample(self) -> None:
        try:
            self.counts.add(self.read())
        except (OSError, RuntimeError, KeyError) as exc:     # a missed sample: the next one covers it
            log.warning("loss sample: %s", exc)


@dataclasses.dataclass(frozen=True)
class Attribution:
    """`lost` packets against the drops counted over the same run, by place."""

    lost: int
    counted: dict[str, int]

    @property
    def migration(self) -> int:
        """Packets lost by migrations (the NFs' hold buffers)."""
        return sum(n for place, n in self.counted.items() if place.split()[-1] in MIGRATION_PLACES)

    @property
    def elsewhere(self) -> int:
        """Packets counted as dropped anywhere else (starved or shaped places)."""
        return sum(self.counted.values()) - self.migration

    @property
    def unattributed(self) -> int:
        """Lost packets that no counter explains."""
        return max(0, self.lost - sum(self.counted.values()))

    def lines(self) -> list[str]:
        where = ", ".join(f"{place} {n}" for place, n in sorted(self.counted.items(), key=lambda kv: -kv[1]))
        return [f"lost {self.lost} packets; counted drops: {where or 'none'}",
                f"  lost by migrations (hold buffers): {self.migration}; counted elsewhere (starved or shaped "
                f"places): {self.elsewhere}; unattributed: {self.unattributed}"]
