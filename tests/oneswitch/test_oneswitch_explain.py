"""The explain view over REST and `unoctl rules`: every virtual rule with the physical rules it became and their
counters, and for a physical rule (by cookie) the virtual rule it came from."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from oneswitch_stack import ofctl, rest, revalidate

from uno_platform.traffic import ping

pytestmark = pytest.mark.platform


def unoctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "uno_agent.unoctl", "rules", *args], capture_output=True, text=True,
                          timeout=60)


def test_explain_links_virtual_and_physical_rules_with_counters(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    desc = stack.platform.description
    vm, ext = desc["vms"][0], desc["ext"]["interfaces"][0]
    ofctl(stack.target, "add-flow", f"priority=10,in_port=1,dl_dst={ext['mac']},actions=output:2")
    ofctl(stack.target, "add-flow", f"priority=10,in_port=2,dl_dst={vm['mac']},actions=output:1")
    ofctl(stack.target, "add-flow", "priority=5,arp,actions=FLOOD")
    revalidate(stack.platform)
    assert ping(vm["netns"], ext["ip"].split("/")[0], count=3)
    time.sleep(1.2)  # the userspace datapath updates flow counters about once a second

    status, body = rest(stack.rest, "GET", "/v1/explain")
    assert status == 200, body
    by_match = {r["match"]: r for r in body["rules"]}
    to_wire = next(r for m, r in by_match.items() if m.startswith("in_port=1"))
    roles = sorted((e["switch"], e["role"]) for e in to_wire["physical"])
    # The sNIC delivers the tag's packets twice over: as an MPLS label (these, IPv4) and as an 802.1ad tag.
    assert roles == [("host", "counting"), ("snic0", "delivery"), ("snic0", "delivery")], to_wire
    assert to_wire["n_packets"] >= 3 and to_wire["physical"][0]["n_packets"] == to_wire["n_packets"], to_wire
    assert [g["flow_id_tag"] for g in to_wire["physical_groups"]], "the tag group on the host"
    flood = next(r for m, r in by_match.items() if "eth_type=0x806" in m)
    assert sorted(e["switch"] for e in flood["physical"] if e["role"] == "counting") == ["host", "snic0"]

    delivery = next(e for e in to_wire["physical"] if e["role"] == "delivery")
    status, entry = rest(stack.rest, "GET", f"/v1/explain?physical_cookie={delivery['cookie']}")
    assert status == 200 and entry["physical"]["role"] == "delivery"
    # Shared: the ARP flood from the host sends to the wire port with the same tag.
    assert sorted(o["id"] for o in entry["from"] if o["kind"] == "rule") == sorted([to_wire["id"], flood["id"]])

    table = unoctl("--rest", f"127.0.0.1:{stack.rest}")
    assert table.returncode == 0, table.stderr
    assert f"#{to_wire['id']} table=0 priority=10" in table.stdout and "delivery" in table.stdout, table.stdout
    one = unoctl("--rest", f"127.0.0.1:{stack.rest}", "--rule", str(to_wire["id"]), "--json")
    assert [r["id"] for r in json.loads(one.stdout)["rules"]] == [to_wire["id"]]
    origin = unoctl("--rest", f"127.0.0.1:{stack.rest}", "--physical-cookie", delivery["cookie"])
    assert f"virtual rule #{to_wire['id']}" in origin.stdout, origin.stdout
    missing = unoctl("--rest", f"127.0.0.1:{stack.rest}", "--rule", "999")
    assert missing.returncode != 0 and "no virtual rule #999" in missing.stderr
    assert rest(stack.rest, "GET", "/v1/explain?colour=red")[0] == 400
