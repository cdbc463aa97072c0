"""The nearest-rank quantile the benchmarks report (p90, p99, p99.9): a value that was measured, not interpolated."""
from __future__ import annotations


def quantile(values: list[float], q: float) -> float:
    """The value at rank `q` (0..1) of `values` (not empty), nearest rank below."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]
