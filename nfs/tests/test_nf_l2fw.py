"""l2fw: 5-tuple ACL, decided per flow."""
from nftraffic import exchange, ip_frames, ping, tcp, udp, wait_processed
from scapy.layers.inet import UDP
from scapy.layers.l2 import Ether

from uno_nfs import decode_state

RULES = """
# DNS to the servers, no telnet, other TCP fine
allow proto udp dst 10.2.0.0/16 dport 53
deny proto tcp dport 23
allow proto tcp
default deny
"""


def test_rules_decide_first_match_wins(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("l2fw", tmp_path, config=RULES)
    frames = {
        "dns": udp("10.1.0.1", "10.2.0.1", 3000, 53),
        "udp-other-port": udp("10.1.0.1", "10.2.0.1", 3000, 54),
        "dns-elsewhere": udp("10.1.0.1", "10.3.0.1", 3000, 53),
        "telnet": tcp("10.1.0.1", "10.2.0.1", 3001, 23),
        "web": tcp("10.1.0.1", "10.2.0.1", 3002, 80),
        "ping": ping("10.1.0.1", "10.2.0.1"),
    }
    got = ip_frames(exchange(wire, nf, frames.values()))
    assert sorted(got) == sorted([frames["dns"], frames["web"]])

    stats = wait_processed(nf, len(frames))
    assert stats["counters"] == {"allowed": 2, "denied": 4}
    rules = nf.ctl.command("rules")
    assert [r["hits"] for r in rules["rules"]] == [1, 1, 1]
    assert rules["default_hits"] == 3


def test_the_decision_is_per_flow_state_and_moves_with_it(ns, tmp_path):
    wire = ns.wire()
    a = ns.start_nf("l2fw", tmp_path, config=RULES, tag="a")
    wire.send([udp("10.1.0.1", "10.2.0.1", 3000, 54)] * 3)
    wait_processed(a, 3)
    state = decode_state(a.ctl.state_get())
    assert [(f.packets, f.nf["action"], f.nf["rule"]) for f in state.flows] \
        == [(3, "deny", None)]

    # A fresh instance whose rules would allow the flow keeps its decision.
    b = ns.start_nf("l2fw", tmp_path, config="default allow\n", tag="b")
    b.ctl.state_put(a.ctl.state_get())
    a.stop()
    ns.procs.remove(a)
    wire.drain()
    got = ip_frames(exchange(wire, b, [udp("10.1.0.1", "10.2.0.1", 3000, 54),
                                       udp("10.1.0.1", "10.2.0.1", 3999, 54)]))
    assert [Ether(f)[UDP].sport for f in got] == [3999]
    flows = {f["sport"]: f["packets"] for f in b.ctl.flows()}
    assert flows == {3000: 4, 3999: 1}
