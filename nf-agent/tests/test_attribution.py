"""The demo's verdict on lost packets (issue 19): counters' increases summed over samples, migration loss told
apart from counted drops elsewhere, and what no counter explains."""
from __future__ import annotations

from uno_agent.attribution import Accumulator, Attribution, flatten


def test_only_increases_after_the_baseline_count():
    acc = Accumulator()
    acc.add({"host datapath_lost": 7, "pcie snic0 host_to_snic": 3}, first=True)
    acc.add({"host datapath_lost": 9, "pcie snic0 host_to_snic": 3})
    acc.add({"host datapath_lost": 12, "pcie snic0 host_to_snic": 3})
    assert acc.increase == {"host datapath_lost": 5}


def test_a_counter_that_went_down_was_created_again_and_counts_from_zero():
    acc = Accumulator()
    acc.add({"t-vp3 tx_dropped": 40}, first=True)
    acc.add({"t-vp3 tx_dropped": 45})
    acc.add({"t-vp3 tx_dropped": 2})        # the port was removed and its name reused
    assert acc.increase == {"t-vp3 tx_dropped": 7}


def test_a_counter_first_seen_during_the_run_counts_whole():
    acc = Accumulator()
    acc.add({}, first=True)
    acc.add({"NF l7fw ring": 4})
    assert acc.increase == {"NF l7fw ring": 4}


def test_hold_buffer_losses_are_migration_losses_and_the_rest_is_attributed_elsewhere():
    verdict = Attribution(lost=110, counted={"NF monitor hold": 10, "NF monitor ring": 60, "rise receiver socket": 40})
    assert (verdict.migration, verdict.elsewhere, verdict.unattributed) == (10, 100, 0)


def test_loss_no_counter_explains_is_unattributed():
    verdict = Attribution(lost=2231, counted={"pcie snic0 host_to_snic": 31})
    assert (verdict.migration, verdict.unattributed) == (0, 2200)
    assert "unattributed: 2200" in verdict.lines()[1]


def test_flatten_leaves_out_nfs_that_did_not_answer():
    body = {"platform": None,
            "nfs": {"a": {"name": "l7fw", "side": "host", "live_counted": True, "ring": 1, "hold": 0, "send": 2},
                    "b": {"name": "monitor", "side": "snic0", "live_counted": False, "ring": 0, "hold": 0,
                          "send": 0}}}
    assert flatten(body) == {"NF l7fw ring": 1, "NF l7fw hold": 0, "NF l7fw send": 2}
