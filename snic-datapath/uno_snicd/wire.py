"""The sNIC daemon's channel: mutual TLS, and messages framed as a 4-byte big-endian length and a JSON object.

Both ends present a certificate signed by the CA the other trusts, and each checks the other's name (the
certificate's CN): the daemon answers only the agent's certificate, the agent talks only to its sNIC's daemon.
"""
from __future__ import annotations

import json
import socket
import ssl
import struct
from collections.abc import Collection

MAX_MESSAGE = 4 << 20          # a request or reply (an NF config, a stats answer) is far smaller
_LENGTH = struct.Struct("!I")


class ChannelError(Exception):
    """The peer broke the protocol or the connection failed."""


def context(purpose: ssl.Purpose, certificate: str, private_key: str, ca_cert: str) -> ssl.SSLContext:
    """A TLS 1.2+ context that presents `certificate` and requires a peer certificate signed by `ca_cert`.

    Names are checked against the certificate's CN by `check_peer` (ovs-pki's certificates have no
    subjectAltName, so the library's host name check does not apply)."""
    ctx = ssl.create_default_context(purpose, cafile=ca_cert)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_cert_chain(certificate, private_key)
    if purpose is ssl.Purpose.CLIENT_AUTH:
        # No TLS 1.3 session tickets: nothing resumes sessions, and a ticket arriving on an idle connection
        # would look like the daemon closing it (uno_nfs.control.peer_closed)
        ctx.num_tickets = 0
    return ctx


def check_peer(sock: ssl.SSLSocket, expected: str | Collection[str]) -> str:
    """The name the peer's certificate gives, `expected` or one of them; ChannelError if not."""
    expected = {expected} if isinstance(expected, str) else set(expected)   # a name, not its substrings
    cert = sock.getpeercert() or {}
    # ovs-pki writes the CN as "<name> id:<uuid>"
    names = [value.split(" id:")[0] for rdn in cert.get("subject", ()) for key, value in rdn if key == "commonName"]
    if len(names) != 1 or names[0] not in expected:
        wanted = " or ".join(map(repr, sorted(expected)))
        raise ChannelError(f"peer certificate names {names or 'nobody'}, not {wanted}")
    return names[0]


def send(sock: socket.socket, message: dict) -> None:
    data = json.dumps(message, separators=(",", ":")).encode()
    if len(data) > MAX_MESSAGE:
        raise ChannelError(f"message of {len(data)} bytes exceeds {MAX_MESSAGE}")
    sock.sendall(_LENGTH.pack(len(data)) + data)


def recv(sock: socket.socket) -> dict | None:
    """The next message; None when the peer closed the connection between messages."""
    header = _recv_exactly(sock, _LENGTH.size, eof_ok=True)
    if header is None:
        return None
    (length,) = _LENGTH.unpack(header)
    if length > MAX_MESSAGE:
        raise ChannelError(f"message of {length} bytes exceeds {MAX_MESSAGE}")
    try:
        message = json.loads(_recv_exactly(sock, length))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ChannelError(f"message is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise ChannelError("message is not a JSON object")
    return message


def _recv_exactly(sock: socket.socket, n: int, *, eof_ok: bool = False) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            if eof_ok and not buf:
                return None
            raise ChannelError("connection closed in the middle of a message")
        buf += chunk
    return bytes(buf)
