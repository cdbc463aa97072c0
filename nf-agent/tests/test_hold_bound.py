"""A migration's hold is sized from the measured rate and bounded in time and fill (issue 19): the pure
decisions. The rollback it triggers, losing nothing, is tested on the platform (tests/agent/test_migration.py,
fault state=slow-state)."""
from __future__ import annotations

import pytest

from uno_agent.migration import (
    HOLD_BOUND_S,
    HOLD_MAX_PACKETS,
    HOLD_MIN_PACKETS,
    HoldBoundExceeded,
    check_hold,
    hold_packets,
)


def test_the_hold_is_twice_what_arrives_within_the_bound_at_the_measured_rate():
    assert hold_packets(100_000) == int(2 * 100_000 * HOLD_BOUND_S)


def test_the_hold_has_a_floor_for_idle_nfs_and_a_ceiling_for_memory():
    assert hold_packets(0) == HOLD_MIN_PACKETS
    assert hold_packets(1e9) == HOLD_MAX_PACKETS


def test_a_hold_past_half_full_or_past_the_time_bound_stops_the_migration():
    check_hold(held=2048, capacity=4096, waited_s=HOLD_BOUND_S)
    with pytest.raises(HoldBoundExceeded, match="past half of its hold of 4096"):
        check_hold(held=2049, capacity=4096, waited_s=0.01)
    with pytest.raises(HoldBoundExceeded, match="waited"):
        check_hold(held=10, capacity=4096, waited_s=HOLD_BOUND_S + 0.01)
