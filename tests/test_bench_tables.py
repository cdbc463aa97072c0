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
    stream = {"direct_rate": 100_000, "oneswitch_rate": 50_000, "ratio": 0.5, "java_null_rate": 90_000,
              "cpu_us_per_flow_mod": {"direct": cpu(4, 10), "java_null": cpu(4, 10, 4),
                                      "oneswitch": cpu(5, 12, 20)}}
    results = {"target_ratio": 0.7, "workloads": {"local": {"stream": stream}}}
    (tmp_path / "oneswitch.json").write_text(json.dumps(results))
    text = tables.render("oneswitch", tmp_path)
    # 18 µs for the Java null proxy's whole run / 0.9 = 20 µs, less OneSwitch's client and bridge (5 + 12): 3 µs
    assert "| stream | oneswitch | 5 | 12 | 20 | 37 | 1.85 | 3 |" in text, text
    assert "| stream | java_null | 4 | 10 | 4 | 18 | 1.62 |  |" in text, text
