"""l7fw: nDPI recognises HTTP, TLS (by SNI) and DNS, and blocks per flow."""
import pytest
from nftraffic import dns_exchange, exchange, http_session, ip_frames, tls_session, wait_processed

from uno_nfs import decode_state


def sessions():
    return {
        "http": http_session(),
        "tls": tls_session("blocked.example"),
        "tls-ok": tls_session("www.allowed.example", sport=40002),
        "dns": dns_exchange("www.example.org"),
    }


def run(ns, tmp_path, config):
    wire = ns.wire()
    nf = ns.start_nf("l7fw", tmp_path, config=config)
    traffic = sessions()
    sent = [f for frames in traffic.values() for f in frames]
    got = set(ip_frames(exchange(wire, nf, sent)))
    passed = {name: [f in got for f in frames]
              for name, frames in traffic.items()}
    return nf, passed


def test_detects_http_tls_sni_and_dns(ns, tmp_path):
    nf, passed = run(ns, tmp_path, config="")
    assert all(all(p) for p in passed.values())
    state = decode_state(nf.ctl.state_get())
    seen = {(f.nf["master"], f.nf["app"], f.nf["host"], f.nf["blocked"])
            for f in state.flows if f.key.proto in (6, 17)}
    assert ("Unknown", "HTTP", "www.example.com", False) in seen
    assert ("Unknown", "TLS", "blocked.example", False) in seen
    assert ("Unknown", "TLS", "www.allowed.example", False) in seen
    assert ("Unknown", "DNS", "www.example.org", False) in seen
    # Both directions of a connection are one flow.
    assert len([f for f in state.flows if f.key.proto == 6]) == 3


@pytest.mark.parametrize("config, blocked", [
    ("block proto HTTP\n", "http"),
    ("block host blocked.example\n", "tls"),
    ("block proto DNS\n", "dns"),
])
def test_blocks_the_configured_flows_only(ns, tmp_path, config, blocked):
    nf, passed = run(ns, tmp_path, config)
    for name, pkts in passed.items():
        if name == blocked:
            # Packets pass until detection (the handshake), not after.
            first_payload = 3 if name != "dns" else 0
            assert pkts[:first_payload] == [True] * first_payload
            assert not any(pkts[first_payload:]), name
        else:
            assert all(pkts), name
    counters = nf.ctl.stats()["counters"]
    assert counters["blocked_flows"] == 1
    assert counters["blocked_packets"] == passed[blocked].count(False) > 0


def test_a_blocked_verdict_moves_with_the_flow(ns, tmp_path):
    wire = ns.wire()
    a = ns.start_nf("l7fw", tmp_path, config="block proto HTTP\n", tag="a")
    session = http_session()
    wire.send(session)
    wait_processed(a, len(session))
    b = ns.start_nf("l7fw", tmp_path, tag="b")         # blocks nothing
    assert b.ctl.state_put(a.ctl.state_get()) >= 1
    a.stop()
    ns.procs.remove(a)
    wire.drain()
    assert ip_frames(exchange(wire, b, [session[3]])) == []   # once more
    flow = next(f for f in decode_state(b.ctl.state_get()).flows
                if f.key.proto == 6)
    assert flow.nf["blocked"] and flow.nf["app"] == "HTTP"
    assert b.ctl.stats()["counters"]["blocked_packets"] == 1
