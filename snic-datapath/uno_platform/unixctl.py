"""A client of an Open vSwitch daemon's control socket (what `ovs-appctl` talks to): JSON-RPC 1.0 over a Unix socket.

`call_all` sends its commands in one write, so the daemon gets all of them or none (a caller that dies after
sending `revalidator/pause` still has its `revalidator/resume` carried out), and reads their answers in order.
"""
from __future__ import annotations

import json
import socket

from uno_platform.errors import PlatformError

MAX_ANSWER = 1 << 20


def call_all(path: str, methods: list[str], timeout: float = 5.0) -> list:
    """Run `methods` (without parameters) in order; their results, or PlatformError naming the first that failed."""
    requests = b"".join(json.dumps({"method": m, "params": [], "id": i}).encode() for i, m in enumerate(methods))
    decoder = json.JSONDecoder()
    answers, text = [], ""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(path)
            sock.sendall(requests)
            data = b""
            while len(answers) < len(methods):
                chunk = sock.recv(65536)
                if not chunk or len(data) + len(chunk) > MAX_ANSWER:
                    raise PlatformError(f"{path} closed or overflowed after {len(answers)} of {len(methods)} answers")
                data += chunk
                text = data.decode(errors="replace").lstrip()
                while text:
                    try:
                        answer, end = decoder.raw_decode(text)
                    except ValueError:
                        break          # the rest has not arrived yet
                    answers.append(answer)
                    text = text[end:].lstrip()
                data = text.encode()
    except OSError as exc:
        raise PlatformError(f"cannot talk to {path}: {exc}") from None
    for method, answer in zip(methods, answers, strict=True):
        if answer.get("error") is not None:
            raise PlatformError(f"{method} failed: {answer['error']}")
    return [a.get("result") for a in answers]
