"""The runtime every NF shares, exercised through the no-op forwarder:
forwarding, the control protocol, two-port mode, unparsed packets."""
import signal
import socket
import struct
import threading
import time

import pytest
from nftraffic import exchange
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

from uno_nfs import NfControlError

ETH = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def udp(i: int, size: int = 100, sport: int = 1000) -> bytes:
    pkt = ETH / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=sport, dport=2000)
    return bytes(pkt / Raw(struct.pack("!I", i).ljust(size, b"x")))


def is_test_udp(frame: bytes) -> bool:
    p = Ether(frame)
    return UDP in p and p[UDP].dport == 2000


def test_noop_forwards_everything_in_order_on_the_same_port(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("noop", tmp_path)
    sent = [udp(i) for i in range(500)]
    wire.send(sent)
    got = wire.recv(count=500, keep=is_test_udp)
    assert got == sent
    stats = nf.ctl.stats()
    assert stats["rx"] >= 500 and stats["tx"] >= 500
    assert stats["drop"] == 0


def test_two_port_mode_sends_out_of_the_other_port(ns, tmp_path):
    ns.add_veth("nf1", "peer1")
    a, b = ns.wire("peer0"), ns.wire("peer1")
    ns.start_nf("noop", tmp_path, "--out-iface", "nf1")
    a.send([udp(i) for i in range(10)])
    b.send([udp(i, sport=3000) for i in range(10)])
    assert [Ether(f)[UDP].sport for f in b.recv(count=10, keep=is_test_udp)] \
        == [1000] * 10
    assert [Ether(f)[UDP].sport for f in a.recv(count=10, keep=is_test_udp)] \
        == [3000] * 10


def test_a_jumbo_frame_as_large_as_the_mtu_is_forwarded_whole(ns, tmp_path):
    """The receive ring's blocks hold a frame as large as the interface's MTU allows."""
    for dev in ("nf0", "peer0"):
        ns.exec("ip", "link", "set", dev, "mtu", "9000")
    wire = ns.wire()
    nf = ns.start_nf("noop", tmp_path)
    sent = [udp(i, size=9000 - 28 - 4) for i in range(5)]
    wire.send(sent)
    assert wire.recv(count=5, keep=is_test_udp) == sent
    assert nf.ctl.stats()["rx_truncated"] == 0


def test_the_receive_ring_covers_a_second_long_stall_at_a_low_rate(ns, tmp_path):
    """The kernel hands a ring block over after 1 ms even when it is nearly empty: at 1,000 packets/s a
    stall of 600 ms fills 600 blocks. The NF, stopped meanwhile (as a busy host deschedules it), loses none."""
    wire = ns.wire()
    nf = ns.start_nf("noop", tmp_path)
    nf.proc.send_signal(signal.SIGSTOP)
    try:
        sent = []
        for i in range(600):
            frame = udp(i)
            wire.send([frame])
            sent.append(frame)
            time.sleep(0.001)
    finally:
        nf.proc.send_signal(signal.SIGCONT)
    assert wire.recv(count=600, keep=is_test_udp) == sent
    assert nf.ctl.stats()["rx_kernel_drops"] == 0


def test_control_protocol_basics(ns, tmp_path):
    nf = ns.start_nf("monitor", tmp_path)
    assert nf.ctl.ping()
    version = nf.ctl.version()
    assert version["nf"] == "monitor" and version["state_format"] == 1
    with pytest.raises(NfControlError) as err:
        nf.ctl.request("no-such-command")
    assert err.value.code == "ENOENT"
    with pytest.raises(NfControlError) as err:
        nf.ctl.request("state get flow udp 10.0.0.1")
    assert err.value.code == "EINVAL"
    with pytest.raises(NfControlError) as err:
        nf.ctl.request("ping", b"unexpected body")
    assert err.value.code == "EINVAL"
    # Several requests in one write are answered in order.
    s = socket.socket(socket.AF_UNIX)
    s.connect(nf.control)
    msgs = b"".join(struct.pack("!I", len(m)) + m for m in (b"ping", b"stats"))
    s.sendall(msgs)
    replies = []
    buf = b""
    while len(replies) < 2:
        buf += s.recv(65536)
        while len(buf) >= 4 and len(buf) >= 4 + struct.unpack("!I", buf[:4])[0]:
            n = struct.unpack("!I", buf[:4])[0]
            replies.append(buf[4:4 + n])
            buf = buf[4 + n:]
    s.close()
    assert replies[0] == b"ok pong\n"
    assert replies[1].startswith(b"ok\n{")
    # An oversized frame closes that connection; the NF lives on.
    s = socket.socket(socket.AF_UNIX)
    s.connect(nf.control)
    s.sendall(struct.pack("!I", 0xFFFFFFFF))
    assert s.recv(10) == b""
    s.close()
    assert nf.ctl.ping()


@pytest.mark.parametrize("policy", ["pass", "drop"])
def test_unparsed_packets_are_counted_and_follow_the_policy(ns, tmp_path, policy):
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path, "--unparsed", policy)
    arp = bytes(ETH / ARP(psrc="10.0.0.1", pdst="10.0.0.2"))
    truncated = udp(1)[:30]                     # IP header cut short
    bad_len = bytearray(udp(2))
    bad_len[16:18] = struct.pack("!H", 1400)    # IP total length > frame
    good = udp(3)
    got = exchange(wire, nf, [arp, truncated, bytes(bad_len), good])
    stats = nf.ctl.stats()
    assert stats["unparsed"] == 3
    assert good in got
    if policy == "pass":
        assert arp in got and truncated in got and bytes(bad_len) in got
        assert stats["unparsed_drop"] == 0
    else:
        assert arp not in got and truncated not in got
        assert stats["unparsed_drop"] == 3
    assert nf.alive()


@pytest.mark.parametrize("bursts", [(5,), (2, 3)])
def test_an_answer_covers_the_packets_that_reached_the_ports_before_the_request(ns, tmp_path, bursts):
    """A migration asks the old NF whether it has been quiet (`idle_us`) and takes what it holds: the answer
    must count packets that were waiting on its port when the request came. Stopped (as a busy host
    deschedules it) while both arrive, the NF reads its ports before it answers, every ring block of them: bursts
    further apart than the kernel's 1 ms block timeout come in blocks of their own."""
    wire = ns.wire()
    nf = ns.start_nf("noop", tmp_path)
    time.sleep(0.2)  # idle: waiting in ppoll for its port and control socket
    nf.proc.send_signal(signal.SIGSTOP)
    answer = {}
    try:
        sent = 0
        for size in bursts:
            wire.send([udp(sent + i) for i in range(size)])
            sent += size
            time.sleep(0.05)  # the kernel hands the ring block over after 1 ms
        asking = threading.Thread(target=lambda: answer.update(nf.ctl.stats()))
        asking.start()
        time.sleep(0.05)  # the request waits on the control socket too
    finally:
        nf.proc.send_signal(signal.SIGCONT)
    asking.join(timeout=10)
    assert answer["rx"] == sum(bursts)
