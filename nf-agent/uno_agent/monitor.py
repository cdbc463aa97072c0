"""The traffic monitor: NF-level traffic matrix from switch counters, and when to re-place.

`TrafficMatrix` turns cumulative byte counters per (source, destination) pair
into smoothed rates (an exponentially weighted moving average). `Monitor` polls
a counter source on a period and asks the service to re-run placement every N
polls. Time is passed in, so both are tested without sleeping.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

Edge = tuple[str, str]


class TrafficMatrix:
    """Smoothed rates in Gbit/s between nodes (servers, wire ports)."""

    def __init__(self, smoothing: float):
        if not 0 < smoothing <= 1:
            raise ValueError("smoothing must be in (0, 1]")
        self.smoothing = smoothing
        self.updated: float | None = None
        self._last: dict[Edge, int] = {}
        self._rates: dict[Edge, float] = {}

    def update(self, counters: dict[Edge, int], now: float) -> None:
        """Fold in byte counters read at `now`.

        A pair seen for the first time only sets its baseline; a counter that went
        down (its rules were replaced) restarts from the new value; a pair whose
        counters disappeared decays toward zero.
        """
        if self.updated is not None and now <= self.updated:
            return
        elapsed = None if self.updated is None else now - self.updated
        rates = {}
        for edge, current in counters.items():
            previous, old = self._last.get(edge), self._rates.get(edge)
            if elapsed is None or previous is None or current < previous:
                if old is not None:
                    rates[edge] = old
                continue
            rates[edge] = self._smooth(old, (current - previous) * 8 / elapsed / 1e9)
        for edge, old in self._rates.items():
            if edge not in counters and (rate := self._smooth(old, 0.0)) > 1e-6:
                rates[edge] = rate
        self._rates, self._last, self.updated = rates, dict(counters), now

    def _smooth(self, old: float | None, sample: float) -> float:
        return sample if old is None else self.smoothing * sample + (1 - self.smoothing) * old

    def rates(self) -> dict[Edge, float]:
        return dict(self._rates)

    def node_rates(self) -> dict[str, float]:
        return node_traffic(self._rates)


def node_traffic(rates: dict[Edge, float]) -> dict[str, float]:
    """Traffic each node handles: the larger of what it receives and what it sends."""
    incoming: dict[str, float] = {}
    outgoing: dict[str, float] = {}
    for (src, dst), rate in rates.items():
        outgoing[src] = outgoing.get(src, 0.0) + rate
        incoming[dst] = incoming.get(dst, 0.0) + rate
    return {n: max(incoming.get(n, 0.0), outgoing.get(n, 0.0)) for n in set(incoming) | set(outgoing)}


class Monitor:
    """Polls `read_counters` every `interval_s`; every `replace_every` polls calls `replace`."""

    def __init__(self, read_counters: Callable[[], dict[Edge, int]], matrix: TrafficMatrix,
                 replace: Callable[[], None], *, interval_s: float, replace_every: int,
                 clock: Callable[[], float]):
        self.read_counters = read_counters
        self.matrix = matrix
        self.replace = replace
        self.interval_s = interval_s
        self.replace_every = replace_every
        self.clock = clock
        self.polls = 0
        self.errors = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def poll(self) -> None:
        """One polling step (the thread calls this; tests call it directly)."""
        try:
            # time-stamp the counters at the middle of the read, not after it: a read slowed down by
            # a busy machine would otherwise inflate one rate and deflate the next
            before = self.clock()
            counters = self.read_counters()
            self.matrix.update(counters, (before + self.clock()) / 2)
        except Exception as exc:  # a switch or OneSwitch briefly away must not stop monitoring
            self.errors += 1
            log.warning("monitor: cannot read counters: %s", exc)
            return
        self.polls += 1
        if self.polls % self.replace_every == 0:
            try:
                self.replace()
            except Exception:
                self.errors += 1
                log.exception("monitor: re-placement failed")

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="uno-monitor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.poll()
