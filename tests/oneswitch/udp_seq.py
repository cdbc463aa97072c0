"""Numbered UDP frames for loss/duplication tests: a paced sender and a capturing receiver.

    python udp_seq.py send IFACE RATE SECONDS STOPFILE [ETHERTYPE [TAGS]]
                                                         # prints how many frames it sent; the IPv4 packet
                                                         # under ETHERTYPE (0x0800) and TAGS 802.1Q tags (0)
    python udp_seq.py receive IFACE OUTFILE STOPFILE     # writes the sequence numbers it saw, in order, when
                                                         # each was sent, and how many frames its socket dropped
    python udp_seq.py flows IFACE FLOWS PER_FLOW RATE    # PER_FLOW frames of each of FLOWS UDP flows (source
                                                         # 10.1.0.0 + flow, port 20000 + flow; sequence
                                                         # flow * PER_FLOW + k)
    python udp_seq.py one IFACE SEQ ETH_SRC ETH_DST TAGS # one frame between those MAC addresses

Run inside a network namespace (`ip netns exec`). Frames are broadcast Ethernet/IPv4/UDP to port 9999
with the payload b"UNOSEQ" + an 8-byte sequence number + the CLOCK_MONOTONIC nanoseconds just before it
was sent (one clock for every namespace); the receiver uses a raw socket with a large
buffer so that it does not lose frames itself. Each stops when STOPFILE appears (or SECONDS pass).
"""
from __future__ import annotations

import json
import os
import socket
import struct
import sys
import time

MAGIC = b"UNOSEQ"
ETH_P_ALL = 0x0003
SO_RCVBUFFORCE = 33
SOL_PACKET = 263
PACKET_STATISTICS = 6


BROADCAST = "ff:ff:ff:ff:ff:ff"


def frame(seq: int, sport: int = 40000, src: str = "10.0.0.254", ethertype: int = 0x0800, tags: int = 0,
          eth_src: str = "02:00:00:00:02:00", eth_dst: str = BROADCAST) -> bytes:
    payload = MAGIC + struct.pack("!QQ", seq, time.monotonic_ns())
    udp = struct.pack("!HHHH", sport, 9999, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0, socket.inet_aton(src),
                     socket.inet_aton("10.0.0.99"))
    vlans = b"".join(struct.pack("!HH", 0x8100, 10 + i) for i in range(tags))
    return bytes.fromhex(eth_dst.replace(":", "") + eth_src.replace(":", "")) + vlans + struct.pack("!H", ethertype) \
        + ip + udp


def send(iface: str, rate: int, seconds: float, stop: str, ethertype: int = 0x0800, tags: int = 0) -> int:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    start, seq = time.monotonic(), 0
    while time.monotonic() - start < seconds and not os.path.exists(stop):
        due = int((time.monotonic() - start) * rate)
        while seq < due:
            s.send(frame(seq, ethertype=ethertype, tags=tags))
            seq += 1
        time.sleep(0.0005)
    return seq


def flows(iface: str, count: int, per_flow: int, rate: int) -> int:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    sent = 0
    for k in range(per_flow):
        for flow in range(count):
            # Open vSwitch's default SELECT hash (symmetric L4) leaves UDP ports out: vary the source address too.
            s.send(frame(flow * per_flow + k, 20000 + flow, f"10.1.{flow >> 8}.{flow & 0xff}"))
            sent += 1
            time.sleep(1 / rate)
    return sent


def receive(iface: str, out: str, stop: str) -> None:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)  # not capped by net.core.rmem_max (root)
    s.bind((iface, 0))
    s.settimeout(0.1)
    seen, sent_ns = [], []
    print("ready", flush=True)
    while not os.path.exists(stop):
        try:
            data, addr = s.recvfrom(2048)
        except TimeoutError:
            continue
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        at = data.find(MAGIC)
        if at >= 0:
            seq, sent = struct.unpack_from("!QQ", data, at + len(MAGIC))
            seen.append(seq)
            sent_ns.append(sent)
    packets, drops = struct.unpack("II", s.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
    with open(out, "w") as f:
        json.dump({"seqs": seen, "sent_ns": sent_ns, "socket_drops": drops}, f)


if __name__ == "__main__":
    if sys.argv[1] == "send":
        extra = [int(a, 0) for a in sys.argv[6:8]]
        print(send(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5], *extra))
    elif sys.argv[1] == "one":
        with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as one:
            one.bind((sys.argv[2], 0))
            one.send(frame(int(sys.argv[3]), eth_src=sys.argv[4], eth_dst=sys.argv[5], tags=int(sys.argv[6])))
    elif sys.argv[1] == "flows":
        print(flows(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])))
    else:
        receive(sys.argv[2], sys.argv[3], sys.argv[4])
