"""Each component's BENCHMARKS.md is what bench/tables.py makes of bench/results: generated, never edited by
hand (a results file changed without regenerating, or a table edited, fails here)."""
from __future__ import annotations

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
