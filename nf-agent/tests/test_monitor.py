"""The traffic matrix: rates from byte counters, smoothing, resets, decay; the polling loop."""
import pytest

from uno_agent.monitor import Monitor, TrafficMatrix

GBIT = 1e9 / 8  # bytes in one gigabit


def test_first_sample_is_only_a_baseline():
    matrix = TrafficMatrix(smoothing=1.0)
    matrix.update({("a", "b"): 10 * GBIT}, now=100.0)
    assert matrix.rates() == {}


def test_rate_is_bytes_per_second_in_gbps():
    matrix = TrafficMatrix(smoothing=1.0)
    matrix.update({("a", "b"): 0}, now=0.0)
    matrix.update({("a", "b"): 4 * GBIT}, now=2.0)
    assert matrix.rates() == {("a", "b"): pytest.approx(2.0)}


def test_smoothing_weighs_the_newest_sample():
    matrix = TrafficMatrix(smoothing=0.5)
    matrix.update({("a", "b"): 0}, now=0.0)
    matrix.update({("a", "b"): 2 * GBIT}, now=1.0)      # 2 Gbit/s
    matrix.update({("a", "b"): 2 * GBIT}, now=2.0)      # 0 Gbit/s
    assert matrix.rates()[("a", "b")] == pytest.approx(1.0)


def test_counter_reset_keeps_the_rate_until_the_next_sample():
    matrix = TrafficMatrix(smoothing=1.0)
    matrix.update({("a", "b"): 0}, now=0.0)
    matrix.update({("a", "b"): 3 * GBIT}, now=1.0)
    matrix.update({("a", "b"): 100}, now=2.0)           # rules re-installed: counter restarted
    assert matrix.rates()[("a", "b")] == pytest.approx(3.0)
    matrix.update({("a", "b"): 100 + GBIT}, now=3.0)
    assert matrix.rates()[("a", "b")] == pytest.approx(1.0)


def test_vanished_pair_decays_to_nothing():
    matrix = TrafficMatrix(smoothing=0.5)
    matrix.update({("a", "b"): 0}, now=0.0)
    matrix.update({("a", "b"): 8 * GBIT}, now=1.0)
    for t in range(2, 40):
        matrix.update({}, now=float(t))
    assert ("a", "b") not in matrix.rates()


def test_node_rate_is_the_larger_direction():
    matrix = TrafficMatrix(smoothing=1.0)
    matrix.update({("vm", "nf"): 0, ("nf", "wire"): 0, ("wire", "nf"): 0}, now=0.0)
    matrix.update({("vm", "nf"): 3 * GBIT, ("nf", "wire"): 3 * GBIT, ("wire", "nf"): GBIT}, now=1.0)
    rates = matrix.node_rates()
    assert rates["nf"] == pytest.approx(4.0)   # receives 3 + 1
    assert rates["vm"] == pytest.approx(3.0)


def test_monitor_replaces_every_n_polls_and_survives_errors():
    now = [0.0]
    readings = [{("a", "b"): 0}, RuntimeError("switch away"), {("a", "b"): GBIT}, {("a", "b"): 2 * GBIT}]
    replaced = []

    def read():
        now[0] += 0.2       # each read takes 0.2 s
        item = readings.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    monitor = Monitor(read, TrafficMatrix(1.0), lambda: replaced.append(monitor.polls),
                      interval_s=1, replace_every=2, clock=lambda: now[0])
    for second in range(4):
        now[0] = float(second)
        monitor.poll()
    assert monitor.errors == 1
    assert monitor.polls == 3
    assert replaced == [2]
    assert monitor.matrix.rates()[("a", "b")] == pytest.approx(1.0)  # 1 Gbit per 1 s poll


def test_counters_are_timed_at_the_middle_of_a_slow_read():
    now = [0.0]
    reads = iter([(0.6, {("a", "b"): 0}), (0.0, {("a", "b"): 7 * GBIT // 10})])

    def read():
        took, counters = next(reads)
        now[0] += took
        return counters

    monitor = Monitor(read, TrafficMatrix(1.0), lambda: None, interval_s=1, replace_every=10,
                      clock=lambda: now[0])
    monitor.poll()          # read from 0.0 to 0.6: counted at 0.3
    now[0] = 1.0
    monitor.poll()          # an instant read at 1.0: 0.7 Gbit in 0.7 s
    assert monitor.matrix.rates()[("a", "b")] == pytest.approx(1.0)
