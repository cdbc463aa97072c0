"""Each component's BENCHMARKS.md is what bench/tables.py makes of bench/results: generated, never edited by
hand (a results file changed without regenerating, or a table edited, fails here)."""
from __future__ import annotations

import json

import pytest

from bench import tables


@pytest.mark.parametrize("component", sorted(tables.COMPONENTS))
def test_the_benchmark_tables_are_generated_from_the_results(component):
    path = tables.REPO / component / "BENCHMARKS.md"
    assert path.read_text() == tables.render(component), \
        f"{path} is not generated from bench/results: run `python -m bench.tables`"


def test_a_table_shows_the_figures_of_its_results_file(tmp_path):
    (tmp_path / "oneswitch-kill.json").write_text('{"rules": 5, "kills": 2, "acknowledged": 5, '
                                                   '"acknowledged_lost": 1, "restart_seconds": [1.5, 3.0], '
                                                   '"met": false}')
    text = tables.render("oneswitch", tmp_path)
    assert "| acknowledged and lost | 1 |" in text and "| restart seconds, max | 3 |" in text
    assert "flow_mod installation" not in text, "a results file that is not there is left out"


def test_the_flow_mod_cpu_table_gives_oneswitch_what_is_left_at_nine_tenths_of_the_java_null_proxy(tmp_path):
    def cpu(client, bridge, proxy=None):
        parts = {"client": client, "bridge": bridge} | ({} if proxy is None else {"proxy": proxy})
        return parts | {"total": sum(parts.values())}

    def mode(java_null_rate, oneswitch):
        return {"direct_rate": 100_000, "oneswitch_rate": 50_000, "ratio": 0.5, "java_null_rate": java_null_rate,
                "cpu_us_per_flow_mod": {"direct": cpu(1, 10), "java_null": cpu(1, 10, 1), "oneswitch": oneswitch}}
    results = {"target_ratio": 0.7, "environment": {"cpus": 2},
               "workloads": {"local": {"stream": mode(100_000, cpu(2, 12, 20)),
                                       "sustained": mode(50_000, cpu(2, 30, 20)),
                                       "barrier": mode(5_000, cpu(90, 200, 130))}}}
    (tmp_path / "oneswitch.json").write_text(json.dumps(results))
    text = tables.render("oneswitch", tmp_path)
    # at 90,000/s a flow_mod may take OneSwitch's one loop 11.1 µs; the cores leave it 22.2 - 2 - 12 = 8.2 µs
    assert "| stream | oneswitch | 2 | 12 | 20 | 34 | 1.7 | 8.2 |" in text, text
    # at 45,000/s: 22.2 µs for the loop, and the cores leave 44.4 - 2 - 30 = 12.4 µs
    assert "| sustained | oneswitch | 2 | 30 | 20 | 52 | 2.6 | 12.4 |" in text, text
    # one round trip at a time: no budget from the cores
    assert "| barrier | oneswitch | 90 | 200 | 130 | 420 | 21 |  |" in text, text
    assert "| stream | java_null | 1 | 10 | 1 | 12 | 1.2 |  |" in text, text


def test_each_streamed_trial_through_a_proxy_shows_its_page_faults(tmp_path):
    row = {"direct_rate": 100_000, "oneswitch_rate": 50_000, "ratio": 0.5, "oneswitch_trials": [90_000, 40_000],
           "direct_trials": [100_000, 100_000],
           "faults_per_flow_mod": {"direct": {"bridge": [0.0, 0.0]},
                                   "oneswitch": {"bridge": [0.0, 0.0], "proxy": [0.001, 1.18]}}}
    results = {"target_ratio": 0.7, "workloads": {"local": {"barrier": row, "sustained": row}}}
    (tmp_path / "oneswitch.json").write_text(json.dumps(results))
    text = tables.render("oneswitch", tmp_path)
    assert "| local | sustained | oneswitch | 90,000 (0.00) · 40,000 (1.18) |" in text, text
    assert "| local | barrier | oneswitch |" not in text and "| direct |" not in text, text
