"""The differential verifier in `make test`: a smaller seeded run than `make bench`'s, and the replay of every
mismatch it ever found (tests/oneswitch/verifier_cases/). A translation is correct when, for every packet, the
reference bridge and the host and sNIC bridges produce the same egress ports, headers, drops and packet-ins."""
from __future__ import annotations

import json
import pathlib

import pytest

from uno_harness.verify import verifier

pytestmark = pytest.mark.platform

CASES = sorted((pathlib.Path(__file__).parent / "verifier_cases").glob("*.json"))


def test_random_rules_and_packets_behave_as_on_one_switch(tmp_path, oneswitch_jar):
    report = verifier.run(seed=7, rule_count=1000, packet_count=6000, workdir=tmp_path)
    summary = json.dumps({k: v for k, v in report.to_json().items() if k != "mismatches"}, indent=1)
    print(summary)
    assert report.virtual_rules["installed"] == 1000, summary  # nothing refused
    assert report.virtual_rules["accepted_only_by_oneswitch"] == [], summary
    assert report.packets["unsupported"] == 0, summary
    # Every packet is compared, tenant QinQ crossing a PCIe link included (encapsulated ones too).
    same_packet = report.packets["normal_learned_by_the_same_packet"]
    # a packet through NORMAL twice toward what it learned itself is rare (4 in the §5.4 run's 20,000, 0 here)
    assert report.packets["compared"] + same_packet == 6000 and same_packet <= 6, summary
    assert report.packets["qinq_crossings"] >= 30, summary
    assert report.packets["qinq_encapsulated_crossings"] >= 1, summary
    assert report.packets["forwarded_from_local"] >= 30 and report.packets["forwarded_to_local"] >= 30, summary
    assert report.packets["forwarded"] > 3000 and report.packets["dropped"] > 0, summary
    assert report.packets["mismatches"] == 0, json.dumps(report.mismatches[:2], indent=1)
    # 2.3-2.4 since a later table's action-set output has an entry per value of the action-set flag (ActionSetFlag),
    # 2.4-2.5 since a flow id has a delivery per header (MPLS label, encapsulated frame: FlowIdHeaders)
    # NORMAL's tables (about 230 entries per switch, whatever the rules) are a fixed cost, counted apart.
    assert report.physical["flows_per_virtual_rule_without_normal_tables"] <= 2.5, summary
    assert 0 < report.physical["normal_tables"] <= 300 * 3, summary


def test_rules_applying_a_meter_on_every_switch_behave_as_on_one_switch(tmp_path, oneswitch_jar):
    """Issue 22: rules on ports of both sNICs and the host (and without in_port) apply one meter, which one
    bridge takes; OneSwitch takes them too, running every port's pipeline on the host, and nothing changes for
    the packets."""
    report = verifier.run(seed=11, rule_count=1000, packet_count=6000, meter_share=0.05, workdir=tmp_path)
    summary = json.dumps({k: v for k, v in report.to_json().items() if k != "mismatches"}, indent=1)
    print(summary)
    assert report.virtual_rules["installed"] == 1000, summary
    assert report.packets["unsupported"] == 0 and report.packets["compared"] == 6000, summary
    assert report.packets["mismatches"] == 0, json.dumps(report.mismatches[:2], indent=1)
    assert report.packets["to_controller"] > 0 and report.packets["forwarded"] > 3000, summary
    # the pipeline is the host's alone: the sNICs keep their dispatch and flow-id entries only
    per_switch = report.physical["per_switch"]
    assert all(per_switch[s]["flows"] <= 40 for s in ("snic0", "snic1")), summary


def test_every_mismatch_found_so_far_stays_fixed(tmp_path, oneswitch_jar):
    cases = [json.loads(p.read_text()) for p in CASES]
    for path, (reference, oneswitch) in zip(CASES, verifier.replay(cases, workdir=tmp_path), strict=True):
        assert reference.outputs or reference.to_controller, f"{path.name}: the case's packet goes nowhere"
        assert reference.key() == oneswitch.key(), f"{path.name}: {reference} != {oneswitch}"
