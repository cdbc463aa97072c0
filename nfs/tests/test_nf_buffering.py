"""Buffering, take and inject: the steps of loss-free migration (issue 8)."""
import struct
import threading
import time

from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from uno_nfs import Packet, decode_state

ETH = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
FLOWS = 20


def numbered(n: int, start: int = 0) -> list[bytes]:
    """Packet i belongs to flow i % FLOWS and carries i.  (One scapy
    template, then bytes patched: tens of thousands are needed.)"""
    template = bytearray(bytes(ETH / IP(src="10.0.0.1", dst="10.0.0.2")
                         / UDP(sport=5000, dport=7000, chksum=0)
                         / Raw(b"p" * 40)))
    frames = []
    for i in range(start, start + n):
        struct.pack_into("!H", template, 34, 5000 + i % FLOWS)
        struct.pack_into("!I", template, 42, i)
        frames.append(bytes(template))
    return frames


def number(frame: bytes) -> int:
    return struct.unpack_from("!I", frame, 42)[0]


def ours(frame: bytes) -> bool:
    """Ethernet, IPv4 without options, UDP to port 7000 (read directly:
    these tests move tens of thousands of frames)."""
    return (len(frame) >= 46 and frame[12:14] == b"\x08\x00"
            and frame[14] == 0x45 and frame[23] == 17
            and frame[36:38] == b"\x1b\x58")


def wait_rx(nf, count: int, timeout: float = 10.0) -> None:
    """Waits until the NF has received `count` packets."""
    deadline = time.monotonic() + timeout
    while nf.ctl.stats()["rx"] < count:
        assert time.monotonic() < deadline, "NF did not receive everything"
        time.sleep(0.01)


def counts(ctl) -> dict:
    return {f["sport"]: f["packets"] for f in ctl.flows()}


def test_packets_sent_while_buffering_come_out_in_order_on_release(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path)
    wire.send(numbered(100))
    assert len(wire.recv(count=100, keep=ours)) == 100

    assert nf.ctl.buffer_start() == 0
    wire.send(numbered(3000, start=100))
    wait_rx(nf, 3100)
    assert wire.recv(timeout=0.2, keep=ours) == []      # held, not forwarded
    stats = nf.ctl.stats()
    assert stats["buffering"] and stats["buffered"] == 3000
    assert sum(counts(nf.ctl).values()) == 100           # not processed yet

    assert nf.ctl.buffer_release() == 3000
    got = wire.recv(count=3000, keep=ours)
    assert [number(f) for f in got] == list(range(100, 3100))
    assert sum(counts(nf.ctl).values()) == 3100
    assert not nf.ctl.stats()["buffering"]

    wire.send(numbered(10, start=3100))                 # normal again
    assert [number(f) for f in wire.recv(count=10, keep=ours)] \
        == list(range(3100, 3110))


def test_packets_arriving_during_a_release_queue_behind_the_held_ones(ns, tmp_path):
    """A release drains the queue a step at a time while new packets keep
    arriving (they queue behind; the C unit tests pin the interleaving): all
    come out once, in order, and the receive ring never overflows."""
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path)
    nf.ctl.buffer_start()
    wire.send(numbered(40000))
    wait_rx(nf, 40000)
    assert nf.ctl.stats()["buffered"] == 40000
    late = threading.Thread(target=wire.send,
                            args=(numbered(5000, start=40000),))
    late.start()
    assert nf.ctl.buffer_release() >= 40000        # some late ones held too
    late.join()
    got = wire.recv(count=45000, timeout=30, keep=ours)
    assert [number(f) for f in got] == list(range(45000))
    stats = nf.ctl.stats()
    assert stats["buffer_state"] == "off" and stats["rx_kernel_drops"] == 0
    assert stats["released"] == stats["held"] >= 40000
    assert sum(counts(nf.ctl).values()) == 45000


def test_buffer_overflow_is_counted_as_drops(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path, "--hold-packets", "50")
    nf.ctl.buffer_start()
    wire.send(numbered(80))
    wait_rx(nf, 80)
    stats = nf.ctl.stats()
    assert stats["buffered"] == 50 and stats["hold_drop"] == 30
    assert nf.ctl.buffer_release() == 50
    assert [number(f) for f in wire.recv(count=50, keep=ours)] == list(range(50))


def test_migration_steps_between_two_instances(ns, tmp_path):
    """Old NF buffers; its state goes to a new NF started in buffering mode;
    the old NF's held packets are taken and injected into the new one ahead
    of what the new one holds; release.  Every packet comes out once, in
    order, and the new NF counts every packet of every flow."""
    ns.add_veth("nf1", "peer1")
    old_wire, new_wire = ns.wire("peer0"), ns.wire("peer1")
    old = ns.start_nf("monitor", tmp_path, tag="old")
    new = ns.start_nf("monitor", tmp_path, "--buffering", iface="nf1",
                      tag="new")

    old_wire.send(numbered(400))                        # before migration
    out = old_wire.recv(count=400, keep=ours)
    old.ctl.buffer_start()
    old_wire.send(numbered(300, start=400))             # held by the old NF
    wait_rx(old, 700)
    assert new.ctl.state_put(old.ctl.state_get(), replace=True) == FLOWS
    new_wire.send(numbered(300, start=700))             # "remapped" port
    wait_rx(new, 300)
    assert new.ctl.stats()["buffered"] == 300

    taken = old.ctl.buffer_take_all()
    assert [number(p.data) for p in taken] == list(range(400, 700))
    assert old.ctl.stats()["buffered"] == 0
    assert new.ctl.inject(taken) == 300
    assert new.ctl.buffer_release() == 300
    out += new_wire.recv(count=600, keep=ours)

    assert [number(f) for f in out] == list(range(1000))
    assert counts(new.ctl) == {5000 + f: 1000 // FLOWS for f in range(FLOWS)}
    state = decode_state(new.ctl.state_get())
    assert sum(f.packets for f in state.flows) == 1000
    assert {a["ip"]: a["packets"] for a in state.records} == {"10.0.0.1": 1000}


def test_inject_processes_packets_as_if_received(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path)
    assert nf.ctl.inject([Packet(f) for f in numbered(5)]) == 5
    assert [number(f) for f in wire.recv(count=5, keep=ours)] == list(range(5))
    assert sum(counts(nf.ctl).values()) == 5
    assert nf.ctl.stats()["injected"] == 5


def test_stats_say_how_long_the_nf_has_received_nothing(ns, tmp_path):
    """`idle_us` lets a migration see at once that the old NF has been quiet
    long enough, instead of watching `rx` for that long itself."""
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path)
    wire.send(numbered(10))
    wait_rx(nf, 10)
    time.sleep(0.2)
    quiet = nf.ctl.stats()
    assert quiet["idle_us"] >= 200_000
    wire.send(numbered(1, start=10))
    wait_rx(nf, 11)
    busy = nf.ctl.stats()
    assert busy["idle_us"] < quiet["idle_us"] and busy["idle_us"] < 100_000
