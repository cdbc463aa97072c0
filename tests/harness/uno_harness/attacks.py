"""Misbehaving clients for OneSwitch's listeners, reusable by tests and the soak benchmark.

Each attacker is a context manager that opens its connection(s) on entry and closes them on exit, so a
test never leaves a socket behind. They hold resources the way a stuck or hostile peer would: they send,
and never read (or never finish a request).
"""
from __future__ import annotations

import errno
import ipaddress
import pathlib
import random
import socket
import struct
import time

from uno_oneswitch.ofclient import OfClient

OFP13 = 4


def header(version: int, msg_type: int, length: int, xid: int) -> bytes:
    return struct.pack("!BBHI", version, msg_type, length, xid)


HELLO = header(OFP13, 0, 8, 1)


def abuse(port: int, payload: bytes, hello_first: bool) -> bytes:
    """Sends `payload` on a fresh connection and returns what came back until close or silence."""
    got = b""
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        if hello_first:
            s.sendall(HELLO)
        try:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            # OneSwitch may already have closed (or reset) the connection on the first bad bytes;
            # that is one of the two answers this test accepts, so read what is left.
            if e.errno not in (errno.ENOTCONN, errno.ECONNRESET, errno.EPIPE):
                raise
        try:
            s.settimeout(1.0)
            while chunk := s.recv(65536):
                got += chunk
        except (TimeoutError, ConnectionError):
            pass
    return got


def streams(rng: random.Random) -> list[tuple[str, bytes, bool]]:
    flow_mod = header(OFP13, 14, 56, 5) + bytes(48)
    cases = [
        ("random bytes", rng.randbytes(4096), False),
        ("random bytes after hello", rng.randbytes(4096), True),
        ("length below header", header(OFP13, 2, 4, 2), True),
        ("oversized length, short body", header(OFP13, 2, 65535, 3) + rng.randbytes(100), True),
        ("wrong version", header(1, 2, 8, 4), True),
        ("truncated flow_mod", flow_mod[:30], True),
        ("flow_mod with garbage body", flow_mod, True),
        ("unknown type", header(OFP13, 99, 8, 6), True),
        ("multipart of unknown type", header(OFP13, 18, 16, 7) + struct.pack("!HH4x", 0x7777, 0), True),
        ("huge random stream", rng.randbytes(1 << 20), True),
    ]
    cases += [(f"random frame {i}", header(OFP13, rng.randrange(256), n, i) + rng.randbytes(n - 8), True)
              for i, n in enumerate(rng.choices(range(8, 300), k=30))]
    return cases


def serialized(client: OfClient, msg) -> bytes:
    msg.set_xid(0)
    msg.serialize()
    return bytes(msg.buf)


def install_rules(port: int, count: int, in_port: int = 1, out_port: int = 2) -> None:
    """Installs `count` distinct rules (in_port, one IPv4 destination each) and waits for the barrier."""
    c = OfClient(port)
    p = c.parser
    base = int(ipaddress.IPv4Address("10.128.0.0"))
    batch = bytearray()
    for i in range(count):
        match = p.OFPMatch(in_port=in_port, eth_type=0x0800, ipv4_dst=str(ipaddress.IPv4Address(base + i)))
        apply = p.OFPInstructionActions(c.ofp.OFPIT_APPLY_ACTIONS, [p.OFPActionOutput(out_port)])
        batch += serialized(c, p.OFPFlowMod(c.dp, priority=100, match=match, instructions=[apply]))
        if len(batch) > 1 << 16:
            c.send_raw(bytes(batch))
            batch.clear()
    c.send_raw(bytes(batch))
    errors = [m for m in c.barrier(timeout=120) if m.msg_type == c.ofp.OFPT_ERROR]
    c.close()
    assert not errors, errors[:3]


class SlowReader:
    """An OpenFlow connection that sends `requests` flow-stats requests (all tables, all rules) and never reads
    a reply: its receive window fills and every reply OneSwitch makes stays with OneSwitch."""

    def __init__(self, port: int, requests: int):
        self.port = port
        self.requests = requests
        self.client: OfClient | None = None

    def __enter__(self) -> SlowReader:
        self.client = OfClient(self.port)
        c = self.client
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        one = serialized(c, c.parser.OFPFlowStatsRequest(c.dp))
        c.sock.settimeout(1)
        data = memoryview(one * self.requests)
        # OneSwitch may stop reading this connection (that is the point): send what it takes, then hold.
        deadline = time.monotonic() + 10
        while data and time.monotonic() < deadline:
            try:
                data = data[c.sock.send(data):]
            except TimeoutError:
                continue
            except OSError:
                break  # closed by OneSwitch
        self.unsent = len(data) // len(one)
        return self

    def closed_by_peer(self) -> bool:
        """True once OneSwitch closed the connection (a read sees EOF or a reset after the pending replies)."""
        s = self.client.sock
        s.settimeout(0)
        try:
            while True:
                chunk = s.recv(1 << 20)
                if not chunk:
                    return True
        except BlockingIOError:
            return False
        except OSError:
            return True

    def __exit__(self, *exc) -> None:
        self.client.close()


class SlowHttp:
    """`connections` HTTP connections to `address` that each send part of a request and then hold: an
    unfinished request line, or complete headers announcing a body that never comes."""

    def __init__(self, host: str, port: int, connections: int = 1, body: bool = False):
        self.address = (host, port)
        self.connections = connections
        self.body = body
        self.socks: list[socket.socket] = []

    def __enter__(self) -> SlowHttp:
        for _ in range(self.connections):
            s = socket.create_connection(self.address, timeout=5)
            if self.body:
                s.sendall(b"POST /v1/ports HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 1000\r\n\r\n{\"of")
            else:
                s.sendall(b"GET /v1/hea")
            self.socks.append(s)
        return self

    def closed_by_peer(self) -> int:
        """How many of the connections the server has closed."""
        closed = 0
        for s in self.socks:
            s.settimeout(0)
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        closed += 1
                        break
            except BlockingIOError:
                pass
            except OSError:
                closed += 1
        return closed

    def __exit__(self, *exc) -> None:
        for s in self.socks:
            s.close()


def echo_seconds(port: int, timeout: float = 10) -> float:
    """Seconds for HELLO plus one echo on a fresh connection (raises when there is no answer in `timeout`)."""
    start = time.monotonic()
    c = OfClient(port)
    try:
        c.sock.settimeout(timeout)
        assert c.echo()
    finally:
        c.close()
    return time.monotonic() - start


def rss_bytes(pid: int) -> int:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")
