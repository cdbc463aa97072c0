"""State export and import: round trips, selections, deletion, and blobs
that must be refused without changing anything."""
import struct
import time

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from uno_nfs import FlowKey, NfControlError, decode_state

ETH = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def traffic(flows: int, per_flow: int, base: int = 20000) -> list[bytes]:
    pkts = []
    for k in range(per_flow):
        for f in range(flows):
            pkts.append(bytes(ETH / IP(src=f"10.1.{f // 250}.{f % 250 + 1}",
                                       dst="10.2.0.1")
                              / UDP(sport=base + f, dport=53)
                              / Raw(b"q" * (20 + k))))
    return pkts


def web(server: str = "10.9.0.80") -> list[bytes]:
    c, s = IP(src="10.1.0.1", dst=server), IP(src=server, dst="10.1.0.1")
    return [bytes(ETH / c / TCP(sport=40000, dport=80, flags="S")),
            bytes(ETH / s / TCP(sport=80, dport=40000, flags="SA")),
            bytes(ETH / s / TCP(sport=80, dport=40000, flags="PA")
                  / Raw(b"HTTP/1.1 200 OK\r\nServer: nginx/1.25\r\n\r\n"))]


def settle(nf, rx: int) -> None:
    """Waits until the NF has received `rx` packets."""
    for _ in range(200):
        if nf.ctl.stats()["processed"] >= rx:
            return
        time.sleep(0.01)
    raise AssertionError(f"NF processed {nf.ctl.stats()['processed']} of {rx}")


def test_round_trip_gives_identical_state_and_counting_continues(ns, tmp_path):
    wire = ns.wire()
    a = ns.start_nf("monitor", tmp_path, tag="a")
    pkts = traffic(flows=300, per_flow=3) + web()
    wire.send(pkts)
    settle(a, len(pkts))
    blob = a.ctl.state_get()
    exported = decode_state(blob)
    # The monitor's flows are one-way: the web connection makes two.
    assert exported.nf == "monitor" and len(exported.flows) == 302
    assert len(exported.records) == 301          # 300 clients and a server

    a.stop()
    ns.procs.remove(a)
    b = ns.start_nf("monitor", tmp_path, tag="b")
    assert b.ctl.state_put(blob) == 302
    imported = decode_state(b.ctl.state_get())
    assert imported.comparable() == exported.comparable()
    server = next(r for r in imported.records if r["ip"] == "10.9.0.80")
    assert {(s["port"], s["app"]) for s in server["services"]} \
        == {(80, "http:nginx/1.25")}

    more = traffic(flows=300, per_flow=2)
    wire.send(more)
    settle(b, len(more))
    after = decode_state(b.ctl.state_get())
    for f in range(300):
        key = FlowKey(17, f"10.1.{f // 250}.{f % 250 + 1}", 20000 + f,
                      "10.2.0.1", 53)
        assert after.flow(key).packets == 5
    # Times moved with the flows: they are no younger than the export.
    old = exported.flow(key)
    assert after.flow(key).age_us >= old.age_us


def test_get_one_flow_a_match_and_delete(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path)
    pkts = traffic(flows=10, per_flow=2)
    wire.send(pkts)
    settle(nf, len(pkts))

    one = decode_state(nf.ctl.state_get(flow=("udp", "10.1.0.3", 20002,
                                               "10.2.0.1", 53)))
    assert [f.key.sport for f in one.flows] == [20002] and one.records == []
    # With no flow the other way, the reverse direction names this flow.
    rev = decode_state(nf.ctl.state_get(flow=(17, "10.2.0.1", 53,
                                               "10.1.0.3", 20002)))
    assert [(f.key, f.packets) for f in rev.flows] \
        == [(f.key, f.packets) for f in one.flows]
    some = decode_state(nf.ctl.state_get(match={"sport": "20000-20004"}))
    assert sorted(f.key.sport for f in some.flows) == list(range(20000, 20005))
    assert nf.ctl.flows(match={"src": "10.1.0.0/24", "sport": 20009})[0][
        "packets"] == 2

    assert nf.ctl.state_delete(match={"sport": "20000-20004"}) == 5
    assert nf.ctl.state_delete(flow=("udp", "10.1.0.7", 20006,
                                     "10.2.0.1", 53)) == 1
    assert len(nf.ctl.flows()) == 4
    assert nf.ctl.state_delete(everything=True) == 4
    assert decode_state(nf.ctl.state_get()).records == []


def test_bad_blobs_are_refused_and_change_nothing(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path)
    pkts = traffic(flows=5, per_flow=1)
    wire.send(pkts)
    settle(nf, len(pkts))
    good = nf.ctl.state_get()
    before = decode_state(good).comparable()

    bad_magic = b"NOPE" + good[4:]
    bad_version = good[:4] + struct.pack("!H", 99) + good[6:]
    wrong_nf = good[:6] + struct.pack("!H", 1) + good[8:]
    truncated = good[:-3]
    extra = good + b"\0"
    # The last flow record, after valid ones, gets address family 5.
    corrupt = bytearray(good)
    ofs, last_flow = 16, None
    while ofs < len(good):
        rtype, _, length = struct.unpack_from("!HHI", good, ofs)
        if rtype == 1:
            last_flow = ofs
        ofs += 8 + length
    corrupt[last_flow + 8] = 5
    for blob in (bad_magic, bad_version, wrong_nf, truncated, extra,
                 bytes(corrupt), b""):
        with pytest.raises(NfControlError) as err:
            nf.ctl.state_put(blob, replace=True)
        assert err.value.code == "EINVAL"
        assert decode_state(nf.ctl.state_get()).comparable() == before


def test_import_beyond_the_table_size_is_refused(ns, tmp_path):
    wire = ns.wire()
    a = ns.start_nf("monitor", tmp_path, tag="a")
    pkts = traffic(flows=20, per_flow=1)
    wire.send(pkts)
    settle(a, len(pkts))
    small = ns.start_nf("monitor", tmp_path, "--max-flows", "10", iface="nf0",
                        tag="small")
    with pytest.raises(NfControlError) as err:
        small.ctl.state_put(a.ctl.state_get(match={"dport": 53}))
    assert err.value.code == "ENOSPC"
    assert small.ctl.flows() == []              # all or nothing


def test_ten_thousand_flows_move_quickly(ns, tmp_path):
    """10,000 flows, imported from a blob built here, exported and
    re-imported: the blob round-trips and the control socket is fast."""
    rec = struct.Struct("!HHI BBHHH16s16sQQQQ BBH")
    blob = bytearray(struct.pack("!4sHHHHI", b"UNOS", 1, 4, 1, 0, 10000))
    for i in range(10000):
        src = bytes([10, 3, i // 256, i % 256]) + bytes(12)
        dst = bytes([10, 4, 0, 1]) + bytes(12)
        blob += rec.pack(1, 0, 76, 4, 17, 30000 + i % 30000, 9, 0, src, dst,
                         i, 100 * i, 5_000_000, 1_000, 0, 0, 0)
    a = ns.start_nf("monitor", tmp_path, tag="a")
    start = time.monotonic()
    assert a.ctl.state_put(bytes(blob)) == 10000
    put = time.monotonic() - start
    start = time.monotonic()
    out = a.ctl.state_get()
    get = time.monotonic() - start
    state = decode_state(out)
    assert len(state.flows) == 10000
    assert sum(f.packets for f in state.flows) == sum(range(10000))
    assert put < 1.0 and get < 1.0, (put, get)
