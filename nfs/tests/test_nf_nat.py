"""nat: source NAT with per-flow mappings."""
from nftraffic import TO_CLIENT, exchange, ip_frames, ping, tcp, udp, wait_processed
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from uno_nfs import decode_state

EXTERNAL = "203.0.113.1"
CONFIG = f"external {EXTERNAL}\ninternal 10.0.0.0/8\nports 20000-20099\n"
REMOTE = "198.51.100.7"


def checksums_ok(frame: bytes) -> bool:
    """Whether the IP and L4 checksums are what scapy computes afresh."""
    pkt = Ether(frame)
    fresh = pkt.copy()
    del fresh[IP].chksum
    for layer in (TCP, UDP, ICMP):
        if layer in fresh:
            del fresh[layer].chksum
    return bytes(Ether(bytes(fresh))) == frame


def reply_to(frame: bytes, payload=b"back") -> bytes:
    p = Ether(frame)
    if ICMP in p:
        return bytes(TO_CLIENT / IP(src=p[IP].dst, dst=p[IP].src)
                     / ICMP(type=0, id=p[ICMP].id, seq=p[ICMP].seq) / Raw(b"pong"))
    l4 = UDP if UDP in p else TCP
    return bytes(TO_CLIENT / IP(src=p[IP].dst, dst=p[IP].src)
                 / l4(sport=p[l4].dport, dport=p[l4].sport) / Raw(payload))


def test_outbound_translated_replies_translated_back(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("nat", tmp_path, config=CONFIG)
    out = [udp("10.0.0.5", REMOTE, 5353, 53), tcp("10.0.0.6", REMOTE, 4444, 80),
           ping("10.0.0.7", REMOTE, ident=99), udp("10.0.0.8", REMOTE, 5353, 53)]
    wire.send(out)
    got = ip_frames(wire.recv(count=4))
    assert len(got) == 4
    ports = []
    for frame in got:
        p = Ether(frame)
        assert p[IP].src == EXTERNAL and p[IP].dst == REMOTE
        port = p[ICMP].id if ICMP in p else p[UDP if UDP in p else TCP].sport
        assert 20000 <= port <= 20099
        ports.append(port)
        assert checksums_ok(frame)
    assert ports[0] != ports[3]                 # one port per UDP mapping

    wire.send([reply_to(f) for f in got])
    back = ip_frames(wire.recv(count=4))
    originals = [(Ether(f)[IP].dst, Ether(f)[IP].src) for f in out]
    assert [(Ether(f)[IP].src, Ether(f)[IP].dst) for f in back] == originals
    assert Ether(back[0])[UDP].dport == 5353
    assert Ether(back[1])[TCP].dport == 4444
    assert Ether(back[2])[ICMP].id == 99
    assert Ether(back[3])[IP].dst == "10.0.0.8"
    assert all(checksums_ok(f) for f in back)
    counters = nf.ctl.stats()["counters"]
    assert (counters["translated_out"], counters["translated_in"]) == (4, 4)
    # One flow per connection, counting both directions.
    assert sorted(f["packets"] for f in nf.ctl.flows()) == [2, 2, 2, 2]


def test_unsolicited_inbound_dropped_other_traffic_passes(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("nat", tmp_path, config=CONFIG)
    unsolicited = udp(REMOTE, EXTERNAL, 53, 20005, ether=TO_CLIENT)
    internal = udp("10.0.0.5", "10.1.0.5", 1, 2)
    transit = udp("192.0.2.1", REMOTE, 1, 2)
    got = ip_frames(exchange(wire, nf, [unsolicited, internal, transit]))
    assert sorted(got) == sorted([internal, transit])
    counters = wait_processed(nf, 3)["counters"]
    assert counters["no_mapping"] == 1 and counters["passed"] == 2


def test_mappings_move_with_the_state(ns, tmp_path):
    wire = ns.wire()
    a = ns.start_nf("nat", tmp_path, config=CONFIG, tag="a")
    wire.send([udp("10.0.0.5", REMOTE, 5353, 53)])
    (translated,) = ip_frames(wire.recv(count=1))
    state = decode_state(a.ctl.state_get())
    (flow,) = state.flows
    assert flow.nf == {"external": EXTERNAL,
                       "ext_port": Ether(translated)[UDP].sport}

    b = ns.start_nf("nat", tmp_path, config=CONFIG, tag="b")
    assert b.ctl.state_put(a.ctl.state_get(), replace=True) == 1
    a.stop()
    ns.procs.remove(a)
    wire.drain()
    wire.send([reply_to(translated),
               udp("10.0.0.5", REMOTE, 5353, 53),      # same flow: same port
               udp("10.0.0.9", REMOTE, 5353, 53)])     # new flow: another
    got = ip_frames(wire.recv(count=3))
    assert (Ether(got[0])[IP].dst, Ether(got[0])[UDP].dport) == ("10.0.0.5", 5353)
    assert Ether(got[1])[UDP].sport == Ether(translated)[UDP].sport
    assert Ether(got[2])[UDP].sport != Ether(translated)[UDP].sport
    assert b.ctl.flows(flow=("udp", "10.0.0.5", 5353, REMOTE, 53))[0][
        "packets"] == 3
