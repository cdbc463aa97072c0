"""A minimal OpenFlow 1.3 client on a raw socket (TCP or Unix), messages built and parsed by os-ken."""
from __future__ import annotations

import socket
import struct
import time

from os_ken.ofproto import ofproto_parser, ofproto_v1_3, ofproto_v1_3_parser


class _Datapath:
    """What os-ken's parsers need of a datapath: the OpenFlow 1.3 modules."""
    ofproto = ofproto_v1_3
    ofproto_parser = ofproto_v1_3_parser


class OfClient:
    """One OpenFlow 1.3 connection: `target` is a TCP port on 127.0.0.1, or "unix:PATH"."""

    dp = _Datapath()
    parser = ofproto_v1_3_parser
    ofp = ofproto_v1_3

    def __init__(self, target: int | str, hello: bool = True):
        if isinstance(target, str) and target.startswith("unix:"):
            self.sock = socket.socket(socket.AF_UNIX)
            self.sock.settimeout(10)
            self.sock.connect(target[len("unix:"):])
        else:
            self.sock = socket.create_connection(("127.0.0.1", int(target)), timeout=10)
        self._buf = b""
        self._xid = 100
        if hello:
            self.send(self.parser.OFPHello(self.dp))
            first = self.recv()
            assert first.msg_type == self.ofp.OFPT_HELLO, first

    def send(self, msg) -> int:
        self._xid += 1
        msg.set_xid(self._xid)
        msg.serialize()
        self.sock.sendall(bytes(msg.buf))
        return self._xid

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self, timeout: float = 10):
        """The next message, or None when the connection closed."""
        self.sock.settimeout(timeout)
        while True:
            if len(self._buf) >= 8:
                version, msg_type, length, xid = struct.unpack("!BBHI", self._buf[:8])
                if len(self._buf) >= length:
                    data, self._buf = self._buf[:length], self._buf[length:]
                    return ofproto_parser.msg(self.dp, version, msg_type, length, xid, data)
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self._buf += chunk

    def recv_until(self, msg_type: int, timeout: float = 10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = self.recv(max(0.1, deadline - time.monotonic()))
            if msg is None:
                return None
            if msg.msg_type == msg_type:
                return msg
        raise AssertionError(f"no message of type {msg_type} within {timeout} s")

    def barrier(self, timeout: float = 60) -> list:
        """Sends a barrier and returns every message received before its reply (errors among them)."""
        xid = self.send(self.parser.OFPBarrierRequest(self.dp))
        before = []
        deadline = time.monotonic() + timeout
        while True:
            msg = self.recv(max(0.1, deadline - time.monotonic()))
            if msg is None:
                raise ConnectionError("connection closed before the barrier reply")
            if msg.msg_type == self.ofp.OFPT_BARRIER_REPLY and msg.xid == xid:
                return before
            before.append(msg)

    def echo(self, data: bytes = b"ping") -> bool:
        xid = self.send(self.parser.OFPEchoRequest(self.dp, data=data))
        reply = self.recv_until(self.ofp.OFPT_ECHO_REPLY)
        return reply is not None and reply.xid == xid and reply.data == data

    def close(self) -> None:
        self.sock.close()
