"""Client of an NF's control socket.

Framing: each request and reply is a 4-byte big-endian length, then that many
bytes.  A request is a command line, "\\n", and an optional binary body; a
reply is "ok[ words]\\n" plus an optional body, or "error ERRNO message\\n".
"""
from __future__ import annotations

import json
import select
import socket
import struct
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

FlowSpec = Sequence  # (proto, src, sport, dst, dport)

_PKT_HDR = struct.Struct("!B3xI")


class NfControlError(Exception):
    """The NF answered with an error (or the connection failed)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ChannelBroken(NfControlError):
    """The connection to the NF failed: the NF is gone, or what carries the connection (an sNIC daemon, its
    link) is. `retry_safe`: the request may be sent again, because it did not reach the NF or repeating it
    changes nothing. A request that moves packets (take, inject, release) whose reply was lost is not: the
    NF may have carried it out."""

    def __init__(self, code: str, message: str, *, retry_safe: bool):
        super().__init__(code, message)
        self.retry_safe = retry_safe


# requests that move packets: carried out twice, they would lose or repeat them (a release is only a state change)
_NOT_REPEATABLE = ("buffer take", "inject")


def abort(sock: socket.socket) -> None:
    """Close `sock` with a reset (SO_LINGER 0): what it has not sent yet is dropped, not sent later."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass   # not a socket that lingers (a Unix one): closing it drops what is unsent anyway
    sock.close()


def peer_closed(sock: socket.socket) -> bool:
    """Whether the peer of an idle request/reply connection closed it (or sent what nobody asked for)."""
    pending = getattr(sock, "pending", None)     # bytes a TLS socket decrypted already
    if pending is not None and pending():
        return True
    return bool(select.select([sock], [], [], 0)[0])


@dataclass(frozen=True)
class Packet:
    """A packet held by, or given to, an NF: the port it arrived on (0 for
    --iface, 1 for --out-iface) and its bytes from the Ethernet header."""

    data: bytes
    port: int = 0


def encode_packets(packets: Iterable[Packet | bytes]) -> bytes:
    """The packet-list body of 'inject'."""
    out = bytearray()
    for p in packets:
        if isinstance(p, (bytes, bytearray, memoryview)):
            p = Packet(bytes(p))
        out += _PKT_HDR.pack(p.port, len(p.data))
        out += p.data
    return bytes(out)


def decode_packets(body: bytes) -> list[Packet]:
    """The packet-list body of 'buffer take'."""
    packets, ofs = [], 0
    while ofs < len(body):
        port, n = _PKT_HDR.unpack_from(body, ofs)
        ofs += _PKT_HDR.size
        if ofs + n > len(body):
            raise NfControlError("EPROTO", "truncated packet list")
        packets.append(Packet(bytes(body[ofs:ofs + n]), port))
        ofs += n
    return packets


def _selector(flow: FlowSpec | None, match: Mapping[str, object] | None,
              what: str) -> list[str]:
    if flow is not None and match is not None:
        raise ValueError(f"{what}: give flow or match, not both")
    if flow is not None:
        if len(flow) != 5:
            raise ValueError("flow is (proto, src, sport, dst, dport)")
        return ["flow"] + [str(x) for x in flow]
    if match is not None:
        words = ["match"]
        for field, value in match.items():
            words += [str(field), str(value)]
        return words
    return []


class NfControl:
    """A connection to the control socket at `path`.

    Every method sends one request and waits for its reply (up to `timeout`
    seconds) and raises NfControlError on an error reply.  The connection is
    kept open; use it as a context manager or call close().
    """

    def __init__(self, path: str, timeout: float = 10.0, *, connect: Callable[[], socket.socket] | None = None):
        """`connect` opens a new connection to the NF (through the sNIC daemon for an NF on a remote sNIC; `path`
        then only names it); by default the NF's Unix socket at `path`. It raises OSError when it cannot."""
        self.path = str(path)
        self.timeout = timeout
        self._connect = connect or self._connect_unix
        self.sock: socket.socket | None = None
        self.last_remaining = 0
        self.last_nf_seconds = 0.0   # time the NF spent in the last state get/put
        self.last_held = 0           # packets the NF held at the last state put
        self.reconnect()

    def _connect_unix(self) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)     # an NF that does not accept (its backlog full) does not block us
        try:
            sock.connect(self.path)
        except OSError:
            sock.close()
            raise
        return sock

    def reconnect(self) -> None:
        """Opens the connection again (after ChannelBroken: a restarted sNIC daemon, a link back up)."""
        self.close()
        try:
            sock = self._connect()
        except OSError as exc:
            raise ChannelBroken("ECONNREFUSED", f"{self.path}: {exc}", retry_safe=True) from exc
        sock.settimeout(self.timeout)
        self.sock = sock

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _abort(self) -> None:
        """Close a connection that failed with a reset, dropping what it has not sent: a request that timed out
        must not reach the NF later, once a link is back, after what the caller did since."""
        if self.sock is not None:
            abort(self.sock)
            self.sock = None

    def __enter__(self) -> NfControl:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _recv_exactly(self, n: int) -> bytes:
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = self.sock.recv_into(view[got:], n - got)
            if not k:
                raise ConnectionResetError("control socket closed")
            got += k
        return bytes(buf)

    def request(self, line: str, body: bytes = b"") -> tuple[list[str], bytes]:
        """Sends command `line` with `body`; returns the words after "ok"
        and the reply body.  ChannelBroken if the connection failed (it is
        not made again: see `reconnect`)."""
        if self.sock is None or peer_closed(self.sock):
            self._abort()   # the NF, or the daemon carrying the connection, went away since the last reply
            raise ChannelBroken("ECONNRESET", f"{self.path}: connection closed", retry_safe=True)
        msg = line.encode() + b"\n" + body
        try:
            self.sock.sendall(struct.pack("!I", len(msg)) + msg)
        except OSError as exc:     # a request cut short is not carried out
            self._abort()
            raise ChannelBroken("ECONNRESET", f"{self.path}: {exc}", retry_safe=True) from exc
        try:
            (n,) = struct.unpack("!I", self._recv_exactly(4))
            reply = self._recv_exactly(n)
        except OSError as exc:     # timed out or closed: the NF may have carried out the request
            self._abort()
            raise ChannelBroken("ECONNRESET", f"{self.path}: {line.split()[0]}: {exc}",
                                retry_safe=not line.startswith(_NOT_REPEATABLE)) from exc
        status, _, rest = reply.partition(b"\n")
        words = status.decode(errors="replace").split(" ")
        if words[0] == "error":
            code = words[1] if len(words) > 1 else "EIO"
            raise NfControlError(code, " ".join(words[2:]))
        if words[0] != "ok":
            raise NfControlError("EPROTO", f"bad reply {status!r}")
        return words[1:], rest

    def _json(self, line: str):
        _, body = self.request(line)
        return json.loads(body)

    def ping(self) -> bool:
        words, _ = self.request("ping")
        return words == ["pong"]

    def version(self) -> dict:
        return self._json("version")

    def stats(self) -> dict:
        return self._json("stats")

    def flows(self, flow: FlowSpec | None = None,
              match: Mapping[str, object] | None = None) -> list[dict]:
        """Per-flow counters: [{proto, src, sport, dst, dport, packets,
        bytes}], of all flows, one flow (either direction), or a match."""
        return self._json(" ".join(["flows"] + _selector(flow, match, "flows")))

    def state_get(self, flow: FlowSpec | None = None,
                  match: Mapping[str, object] | None = None) -> bytes:
        """The state blob of all flows and the NF's global state, or of one
        flow or the flows a match selects (flows only)."""
        words, body = self.request(" ".join(["state", "get"]
                                            + _selector(flow, match, "state get")))
        self.last_nf_seconds = int(words[1]) / 1e6
        return body

    def state_put(self, blob: bytes, replace: bool = False) -> int:
        """Imports a blob (merging, or replacing all state); returns the
        number of flows imported.  All or nothing.  The number of packets
        the NF holds is in `self.last_held`."""
        words, _ = self.request("state put " + ("replace" if replace else "merge"),
                                blob)
        self.last_nf_seconds = int(words[1]) / 1e6
        self.last_held = int(words[2])
        return int(words[0])

    def state_delete(self, flow: FlowSpec | None = None,
                     match: Mapping[str, object] | None = None,
                     everything: bool = False) -> int:
        """Deletes one flow, the flows of a match, or (everything=True) all
        state; returns the number of flows deleted."""
        words = _selector(flow, match, "state delete")
        if everything == bool(words):
            raise ValueError("state_delete: give one of flow, match, everything")
        words, _ = self.request(" ".join(["state", "delete"] + (words or ["all"])))
        return int(words[0])

    def buffer_start(self) -> int:
        """Stops processing: newly received packets are held in order.
        Returns the number already held."""
        words, _ = self.request("buffer start")
        return int(words[0])

    def buffer_take(self, max_bytes: int | None = None) -> list[Packet]:
        """Removes the held packets (oldest first, up to about `max_bytes`)
        from the NF and returns them; buffering stays on.  The number still
        held is in `self.last_remaining`."""
        line = "buffer take" + (f" {max_bytes}" if max_bytes else "")
        words, body = self.request(line)
        self.last_remaining = int(words[1])
        packets = decode_packets(body)
        if len(packets) != int(words[0]):
            raise NfControlError("EPROTO", "packet count mismatch")
        return packets

    def buffer_take_all(self, into: list | None = None) -> list[Packet]:
        """buffer_take() until nothing is held; appends to `into` (returned) take by take, so that what was
        taken stays in the caller's hands if a later take fails."""
        packets = [] if into is None else into
        packets += self.buffer_take()
        while self.last_remaining:
            packets += self.buffer_take()
        return packets

    def inject(self, packets: Iterable[Packet | bytes]) -> int:
        """Has the NF process `packets` now, as if received, ahead of the
        packets it holds; returns how many."""
        words, _ = self.request("inject", encode_packets(packets))
        return int(words[0])

    def buffer_release(self) -> int:
        """Processes the held packets in order, then resumes normal
        processing; returns how many were released."""
        words, _ = self.request("buffer release")
        return int(words[0])

    def command(self, *words: str):
        """An NF-specific command ('rules', 'sas', 'assets'); returns its
        JSON reply."""
        return self._json(" ".join(words))


def accepts(path: str) -> bool:
    """Whether a control socket accepts connections at `path` (its file appears at bind(), before listen())."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        try:
            sock.connect(str(path))
        except OSError:
            return False
    return True


def wait_ready(path: str, timeout: float = 10.0) -> NfControl:
    """Waits until the NF answers on `path` and returns a connection."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            ctl = NfControl(path)
            if ctl.ping():
                return ctl
            ctl.close()
        except (NfControlError, OSError):
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"NF control socket {path} not ready")
        time.sleep(0.02)
