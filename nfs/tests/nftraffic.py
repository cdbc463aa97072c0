"""Traffic for the NF tests, crafted with scapy."""
from __future__ import annotations

import time

from scapy.layers.dns import DNS, DNSQR, DNSRR
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import Ether
from scapy.layers.tls.extensions import ServerName, TLS_Ext_ServerName
from scapy.layers.tls.handshake import TLSClientHello
from scapy.layers.tls.record import TLS
from scapy.packet import Raw

CLIENT_MAC = "02:00:00:00:00:01"
SERVER_MAC = "02:00:00:00:00:02"
TO_SERVER = Ether(src=CLIENT_MAC, dst=SERVER_MAC)
TO_CLIENT = Ether(src=SERVER_MAC, dst=CLIENT_MAC)


def tcp_session(client: str, server: str, sport: int, dport: int,
                request: bytes, response: bytes = b"",
                syn_options=None) -> list[bytes]:
    """Handshake, one request and (optionally) one response."""
    c = TO_SERVER / IP(src=client, dst=server)
    s = TO_CLIENT / IP(src=server, dst=client)
    pkts = [c / TCP(sport=sport, dport=dport, flags="S", seq=1000,
                    options=syn_options or []),
            s / TCP(sport=dport, dport=sport, flags="SA", seq=5000, ack=1001),
            c / TCP(sport=sport, dport=dport, flags="A", seq=1001, ack=5001),
            c / TCP(sport=sport, dport=dport, flags="PA", seq=1001, ack=5001)
            / Raw(request)]
    if response:
        pkts.append(s / TCP(sport=dport, dport=sport, flags="PA", seq=5001,
                            ack=1001 + len(request)) / Raw(response))
    return [bytes(p) for p in pkts]


def http_session(client="10.0.0.1", server="10.0.1.80", sport=40000,
                 host="www.example.com") -> list[bytes]:
    request = (f"GET / HTTP/1.1\r\nHost: {host}\r\nUser-Agent: curl/8.1\r\n"
               "Accept: */*\r\n\r\n").encode()
    response = b"HTTP/1.1 200 OK\r\nServer: nginx/1.25\r\nContent-Length: 0\r\n\r\n"
    return tcp_session(client, server, sport, 80, request, response)


def tls_session(sni: str, client="10.0.0.1", server="10.0.1.43",
                sport=40001) -> list[bytes]:
    hello = TLS(msg=[TLSClientHello(ext=[TLS_Ext_ServerName(
        servernames=[ServerName(servername=sni.encode())])])])
    return tcp_session(client, server, sport, 443, bytes(hello))


def dns_exchange(name: str, client="10.0.0.1", server="10.0.1.53",
                 sport=33333) -> list[bytes]:
    query = TO_SERVER / IP(src=client, dst=server) / UDP(sport=sport, dport=53) \
        / DNS(id=7, rd=1, qd=DNSQR(qname=name))
    answer = TO_CLIENT / IP(src=server, dst=client) / UDP(sport=53, dport=sport) \
        / DNS(id=7, qr=1, qd=DNSQR(qname=name),
              an=DNSRR(rrname=name, rdata="192.0.2.7"))
    return [bytes(query), bytes(answer)]


def udp(src: str, dst: str, sport: int, dport: int, payload: bytes = b"data",
        ether=TO_SERVER) -> bytes:
    return bytes(ether / IP(src=src, dst=dst) / UDP(sport=sport, dport=dport)
                 / Raw(payload))


def tcp(src: str, dst: str, sport: int, dport: int, flags="S",
        payload: bytes = b"") -> bytes:
    pkt = TO_SERVER / IP(src=src, dst=dst) / TCP(sport=sport, dport=dport,
                                                 flags=flags)
    return bytes(pkt / Raw(payload) if payload else pkt)


def ping(src: str, dst: str, ident: int = 77, seq: int = 1) -> bytes:
    return bytes(TO_SERVER / IP(src=src, dst=dst) / ICMP(id=ident, seq=seq)
                 / Raw(b"ping"))


def ip_frames(frames: list[bytes]) -> list[bytes]:
    return [f for f in frames if IP in Ether(f)]


def wait_processed(nf, count: int, timeout: float = 10.0) -> dict:
    """Waits until the NF processed `count` packets; returns its stats."""
    deadline = time.monotonic() + timeout
    while True:
        stats = nf.ctl.stats()
        if stats["processed"] >= count or time.monotonic() > deadline:
            return stats
        time.sleep(0.01)


def exchange(wire, nf, frames, keep=lambda frame: True) -> list[bytes]:
    """Sends `frames` and returns what the NF sent back.  It waits until the
    NF has processed them all (it transmits a batch before counting it), so
    that a frame's absence means the NF dropped it, however slow the
    machine."""
    frames = list(frames)
    before = nf.ctl.stats()["processed"]
    wire.send(frames)
    wait_processed(nf, before + len(frames))
    return wire.recv(timeout=5.0, quiet=0.2, keep=keep)
