"""The many-hosts benchmark counts the controller's OpenFlow messages from a capture of its port: segments are put
back in order, messages spanning segments are counted once, and a capture that starts in the middle of a message
picks up at the next segment."""
from __future__ import annotations

import struct

from bench.bench_many_hosts import _openflow_messages

CONTROLLER = 6653


def _message(kind: int, body: bytes = b"") -> bytes:
    return struct.pack("!BBHI", 4, kind, 8 + len(body), 7) + body


def _frame(sport: int, dport: int, seq: int, payload: bytes) -> bytes:
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, 0x18, 65535, 0, 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, b"\x7f\0\0\1", b"\x7f\0\0\1") + tcp
    return b"\0" * 12 + b"\x08\x00" + ip


def _pcap(path, frames: list[bytes]) -> None:
    records = b"".join(struct.pack("<IIII", 0, 0, len(f), len(f)) + f for f in frames)
    path.write_bytes(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1) + records)


def test_messages_are_counted_once_whatever_the_segments(tmp_path):
    flow_mod, packet_in = _message(14, b"m" * 40), _message(10, b"p" * 20)
    to_switch = _message(2) + flow_mod            # an echo request and a flow_mod, split across two segments
    to_controller = b"tail-of-an-earlier-message" + _message(3) + packet_in
    frames = [
        _frame(CONTROLLER, 40000, 1000 + 20, to_switch[20:]),   # arrives first, sent second
        _frame(CONTROLLER, 40000, 1000, to_switch[:20]),
        _frame(40000, CONTROLLER, 5, to_controller[:26]),       # the capture began inside a message
        _frame(40000, CONTROLLER, 5 + 26, to_controller[26:]),
        _frame(40001, 9999, 1, _message(14)),                   # another port: not the controller's
    ]
    pcap = tmp_path / "c.pcap"
    _pcap(pcap, frames)
    counts = _openflow_messages(pcap, CONTROLLER)
    assert counts["from_controller"] == 2 and counts["to_controller"] == 2
    assert counts["by_type"] == {"ECHO_REQUEST": 1, "FLOW_MOD": 1, "ECHO_REPLY": 1, "PACKET_IN": 1}
    assert counts["messages"] == 4
