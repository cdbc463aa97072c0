"""The port map over REST: what the NF agent will use. Adding and removing mappings changes the
virtual ports controllers see (PORT_STATUS), a new NF port carries traffic once mapped, and bad
requests get a 4xx with a reason."""
from __future__ import annotations

import http.client
import json
import statistics
import threading
import time

import pytest
from oneswitch_stack import OfClient, ofctl, rest, revalidate

from uno_platform.traffic import netns_run

pytestmark = pytest.mark.platform


def test_port_mappings_over_rest(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    watcher = OfClient(stack.listen)
    p, ofp = watcher.parser, watcher.ofp
    watcher.send(p.OFPSetConfig(watcher.dp, 0, 128))  # a service connection asks for async messages

    status, body = rest(stack.rest, "GET", "/v1/ports")
    assert status == 200 and [m["virtual_port"] for m in body["ports"]] == [1, 2, 0xfffffffe]
    assert body["ports"][2] | {"link_up": None} == {"virtual_port": 0xfffffffe, "switch": "host", "port": "LOCAL",
                                                   "ofport": 0xfffffffe, "name": "LOCAL", "link_up": None}

    nf = stack.platform.add_port("host", stack.platform.prefix + "nf0")
    status, mapping = rest(stack.rest, "POST", "/v1/ports", {"switch": "host", "port": nf["name"],
                                                             "virtual_port": 10, "name": "ids0"})
    assert status == 201, mapping
    assert mapping == {"virtual_port": 10, "switch": "host", "port": nf["name"], "ofport": nf["ofport"],
                       "name": "ids0", "link_up": True}
    added = watcher.recv_until(ofp.OFPT_PORT_STATUS)
    assert added.reason == ofp.OFPPR_ADD and added.desc.port_no == 10 and added.desc.name == b"ids0"
    assert "10(ids0)" in ofctl(stack.target, "show").stdout

    # The new virtual port works like any other: traffic from the VM reaches the NF's interface.
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:10")
    revalidate(stack.platform)
    vm = stack.platform.description["vms"][0]
    netns_run(vm["netns"], ["ip", "neigh", "replace", "10.0.0.99", "lladdr", "02:00:00:00:99:99", "dev", "eth0"])
    netns_run(vm["netns"], ["ping", "-c", "5", "-i", "0.1", "-W", "1", "10.0.0.99"])
    counters = netns_run(nf["netns"], ["cat", f"/sys/class/net/{nf['nf_ifname']}/statistics/rx_packets"])
    assert int(counters.stdout) >= 5, "the NF port did not receive the VM's packets"

    assert rest(stack.rest, "GET", "/v1/ports/10")[1]["port"] == nf["name"]
    assert rest(stack.rest, "DELETE", "/v1/ports/10") == (204, None)
    removed = watcher.recv_until(ofp.OFPT_PORT_STATUS)
    assert removed.reason == ofp.OFPPR_DELETE and removed.desc.port_no == 10
    assert "10(ids0)" not in ofctl(stack.target, "show").stdout
    watcher.close()


BAD_REQUESTS = [
    ("POST", "/v1/ports", None, b"{not json", 400, "not valid JSON"),
    ("POST", "/v1/ports", [1, 2], None, 400, "JSON object"),
    ("POST", "/v1/ports", {"switch": "host"}, None, 400, "exactly one of"),
    ("POST", "/v1/ports", {"switch": "host", "port": "x", "colour": "red"}, None, 400, "unknown key"),
    ("POST", "/v1/ports", {"switch": "nowhere", "port": "x"}, None, 404, "unknown switch"),
    ("POST", "/v1/ports", {"switch": "host", "port": "no-such-port"}, None, 404, "has no port"),
    ("POST", "/v1/ports", {"switch": "host", "ofport": 1}, None, 400, "PCIe link port"),
    ("POST", "/v1/ports", {"switch": "snic0", "ofport": 2}, None, 409, "already virtual port"),
    ("POST", "/v1/ports", {"switch": "host", "ofport": 2, "virtual_port": "one"}, None, 400, "port number"),
    # Issue 15: the bridge's LOCAL port is not a port to map, and a number past 64 bits must not wrap to 1.
    ("POST", "/v1/ports", {"switch": "host", "ofport": 4294967294}, None, 400, "port number from 1"),
    ("POST", "/v1/ports", {"switch": "host", "ofport": 2, "virtual_port": 65280}, None, 400, "port number from 1"),
    ("POST", "/v1/ports", {"switch": "host", "ofport": 2**64 + 1}, None, 400, "port number from 1"),
    ("POST", "/v1/ports", {"switch": "host", "ofport": 2, "virtual_port": 2**64 + 1}, None, 400, "port number"),
    # ... a malformed query is answered in JSON, and a repeated parameter is ambiguous.
    ("GET", "/v1/explain?rule=%zz", None, None, 400, "malformed"),
    ("GET", "/v1/explain?rule=1&rule=2", None, None, 400, "given 2 times"),
    ("GET", "/v1/ports/77", None, None, 404, "not mapped"),
    ("DELETE", "/v1/ports/zero", None, None, 400, "not a virtual port number"),
    # LOCAL is always the host bridge's: not moved or removed.
    ("DELETE", "/v1/ports/4294967294", None, None, 400, "not a virtual port number"),
    ("PUT", "/v1/ports/4294967294", {"switch": "snic0", "ofport": 2}, None, 400, "not a virtual port number"),
    ("PUT", "/v1/ports", {}, None, 405, "not allowed"),
    ("GET", "/v1/nothing", None, None, 404, "no resource"),
    ("POST", "/v1/drains", {}, None, 400, "'from'"),
    ("POST", "/v1/drains", {"from": "nowhere"}, None, 404, "no switch 'nowhere'"),
    ("POST", "/v1/drains", {"from": "host", "timeout_ms": 0}, None, 400, "from 1 to 10000"),
    ("POST", "/v1/drains", {"from": "host", "timeout_ms": 2**64}, None, 400, "from 1 to 10000"),
    ("POST", "/v1/drains", {"from": "host", "via": "x"}, None, 400, "unknown key"),
    ("GET", "/v1/drains", None, None, 405, "not allowed"),
]


def test_a_drain_from_each_switch_comes_back_through_the_links(oneswitch_stack):
    """Drain markers cross the real PCIe link from the switch named to the other, whose table hands them back."""
    stack = oneswitch_stack(controller=False, vms=1)
    for switch in ("host", "snic0"):
        status, answer = rest(stack.rest, "POST", "/v1/drains", {"from": switch, "timeout_ms": 2000})
        assert status == 200 and answer["from"] == switch and answer["drained"] is True, answer
        assert 0 < answer["elapsed_ms"] < 2000


def test_a_port_the_switch_reports_a_moment_later_is_waited_for(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    name = stack.platform.prefix + "nf1"
    adder = threading.Timer(0.3, stack.platform.add_port, ("host", name))
    adder.start()
    try:
        status, mapping = rest(stack.rest, "POST", "/v1/ports", {"switch": "host", "port": name})
    finally:
        adder.join()
    assert status == 201 and mapping["port"] == name, mapping
    started = time.monotonic()
    status, body = rest(stack.rest, "POST", "/v1/ports", {"switch": "host", "port": "never-added"})
    assert status == 404 and "has no port 'never-added'" in body["error"]
    assert time.monotonic() - started >= 1.9    # it waited (2 s) before refusing


def test_bad_rest_requests_get_4xx_with_a_reason(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    for method, path, body, raw, status, reason in BAD_REQUESTS:
        got, answer = rest(stack.rest, method, path, body, raw=raw)
        assert got == status and reason in answer["error"], (method, path, body, answer)
    assert rest(stack.rest, "GET", "/v1/ports")[1]["ports"][0]["virtual_port"] == 1, "nothing changed"


def test_keep_alive_requests_are_answered_without_delay(oneswitch_stack):
    """A client that keeps its connection (the NF agent remaps inside a migration's few milliseconds) must not
    wait for Nagle and the delayed ACK: that cost 44 ms per request before OneSwitch set TCP_NODELAY."""
    stack = oneswitch_stack(controller=False, vms=1)
    conn = http.client.HTTPConnection("127.0.0.1", stack.rest, timeout=10)
    took = []
    for _ in range(20):
        start = time.perf_counter()
        conn.request("GET", "/v1/ports/1")
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["virtual_port"] == 1
        took.append(time.perf_counter() - start)
    conn.close()
    assert statistics.median(took) < 0.02, f"keep-alive requests took {took}"
