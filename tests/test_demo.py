"""`make demo` in a shortened run: the whole system, unattended, and its report (issue 8): no migration loses a
packet, and every other lost packet is attributed to a counted place (issue 19)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from uno_harness.agent import PROFILES
from uno_platform.testing import unique_prefix

pytestmark = [pytest.mark.platform, pytest.mark.alone]   # no loss under live traffic: nothing beside it


@pytest.mark.parametrize("profile", PROFILES)
def test_demo_runs_unattended_and_reports_lossless_migrations(tmp_path, profile):
    result = subprocess.run([sys.executable, "-m", "uno_harness.demo", "--short", "--prefix", unique_prefix(),
                             "--report-dir", str(tmp_path), "--profile", profile],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    report = (tmp_path / "report.txt").read_text()
    assert (tmp_path / "timeline.png").stat().st_size > 10_000
    assert re.search(rf"platform \S+ \({profile}\): host \+ sNIC", report), report
    for name in ("secgw", "l7fw", "monitor"):
        assert re.search(rf"created {name}\s.*runs on (host|snic0)", report), report
    assert re.search(r"migrations lost nothing: 0 lost by migrations, 0 duplicated, 0 reordered over [1-9]\d* "
                     r"migrations; \d+ lost in all, 0 unattributed -> OK", report), report
    assert re.search(r"lost \d+ packets; counted drops: ", report), report
    assert "platform down, nothing left" in result.stdout
