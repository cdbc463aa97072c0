"""Open vSwitch daemon control sockets (what ovs-appctl talks to), without a process per call.

`ovs-appctl` forks a process for every command; the verifier runs tens of thousands of
`ofproto/trace` calls, so it speaks the JSON-RPC protocol on the socket directly.
"""
from __future__ import annotations

import json
import socket


class AppctlError(RuntimeError):
    """The daemon answered a command with an error."""


class Appctl:
    """One connection to a daemon's control socket; commands are answered in order."""

    def __init__(self, path: str, timeout: float = 60):
        self.path = path
        self._sock = socket.socket(socket.AF_UNIX)
        self._sock.settimeout(timeout)
        self._sock.connect(path)
        self._buf = ""
        self._id = 0
        self._decoder = json.JSONDecoder()

    def call(self, method: str, *params: str) -> str:
        self._id += 1
        self._sock.sendall(json.dumps({"method": method, "params": list(params), "id": self._id}).encode())
        while True:
            try:
                reply, end = self._decoder.raw_decode(self._buf.lstrip())
                self._buf = self._buf.lstrip()[end:]
                break
            except ValueError:
                chunk = self._sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionError(f"{self.path} closed the connection") from None
                self._buf += chunk.decode()
        if reply.get("error") is not None:
            raise AppctlError(f"{method} {' '.join(params)}: {reply['error']}")
        return reply["result"]

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Appctl:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
