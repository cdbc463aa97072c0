"""The host's end of the sNIC daemon's channel (`wire`)."""
from __future__ import annotations

import socket
import ssl
import threading

from uno_nfs.control import abort, peer_closed
from uno_snicd import wire

CONNECT_TIMEOUT = 5.0
REQUEST_TIMEOUT = 30.0       # starting an NF waits up to 10 s for it


class RemoteError(Exception):
    """The daemon refused the request or could not carry it out (its reason), or could not be reached."""


class ControlUnreachable(RemoteError, ConnectionError):
    """An NF's control channel cannot be opened: the daemon is down or unreachable, or has no such NF."""


class SnicClient:
    """Requests to the daemon at `address`, which must present a certificate named `daemon_name`.

    One connection carries the requests, one at a time, and is made again after a failure; each NF control
    channel (`control`) has a connection of its own."""

    def __init__(self, address: tuple[str, int], tls: ssl.SSLContext, daemon_name: str):
        self.address, self.tls, self.daemon_name = address, tls, daemon_name
        self._sock: ssl.SSLSocket | None = None
        self._lock = threading.Lock()

    def connect(self) -> ssl.SSLSocket:
        try:
            raw = socket.create_connection(self.address, timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise RemoteError(f"sNIC daemon at {self.address[0]}:{self.address[1]}: {exc}") from None
        sock = None
        try:
            sock = self.tls.wrap_socket(raw)     # takes over raw's descriptor
            wire.check_peer(sock, self.daemon_name)
        except (OSError, wire.ChannelError) as exc:
            (sock or raw).close()
            raise RemoteError(f"sNIC daemon at {self.address[0]}:{self.address[1]}: {exc}") from None
        sock.settimeout(REQUEST_TIMEOUT)
        return sock

    def call(self, op: str, **args) -> dict:
        """The daemon's reply to request `op`; RemoteError with its reason if it refused."""
        with self._lock:
            if self._sock is not None and peer_closed(self._sock):
                self.close()        # the daemon restarted since the last request: nothing was lost
            if self._sock is None:
                self._sock = self.connect()
            try:
                wire.send(self._sock, {"op": op, **args})
                reply = wire.recv(self._sock)
                if reply is None:
                    raise wire.ChannelError("the daemon closed the connection")
            except (OSError, wire.ChannelError) as exc:
                abort(self._sock)   # a request that timed out must not reach the daemon later (a link back up)
                self._sock = None
                raise RemoteError(f"sNIC daemon: {op}: {exc}") from None
        if "error" in reply:
            raise RemoteError(f"sNIC daemon: {op}: {reply['error']}")
        return reply

    def control(self, instance_id: str) -> ssl.SSLSocket:
        """A connection that now speaks NF `instance_id`'s control protocol (uno_nfs.NfControl's `connect`)."""
        try:
            sock = self.connect()
        except RemoteError as exc:
            raise ControlUnreachable(str(exc)) from None
        try:
            wire.send(sock, {"op": "control", "id": instance_id})
            reply = wire.recv(sock)
        except (OSError, wire.ChannelError) as exc:
            abort(sock)
            raise ControlUnreachable(f"sNIC daemon: control {instance_id}: {exc}") from None
        if reply is None or "error" in reply:
            sock.close()
            raise ControlUnreachable(f"sNIC daemon: control {instance_id}: {(reply or {}).get('error', 'closed')}")
        return sock

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
