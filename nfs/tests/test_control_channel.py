"""NfControl over a connection that breaks: what it tells the caller, against a real Unix socket whose far
end (an NF, or the sNIC daemon carrying the connection) answers some requests and dies in others."""
from __future__ import annotations

import socket
import struct
import threading

import pytest

from uno_nfs import ChannelBroken, NfControl


class FarEnd:
    """A control socket that answers "ok 7" to a request, or closes the connection when it reads one of `die_on`."""

    def __init__(self, path, die_on: tuple[str, ...]):
        self.die_on = die_on
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        self.listener.listen()
        self.requests: list[str] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            with conn:
                while header := conn.recv(4, socket.MSG_WAITALL):
                    line = conn.recv(struct.unpack("!I", header)[0], socket.MSG_WAITALL).decode().split("\n")[0]
                    self.requests.append(line)
                    if line.startswith(self.die_on):
                        break
                    conn.sendall(struct.pack("!I", 4) + b"ok 7")


@pytest.mark.parametrize("line, retry_safe", [("stats", True), ("state get", True), ("buffer start", True),
                                              ("buffer release", True), ("buffer take", False), ("inject", False)])
def test_a_lost_reply_says_whether_the_request_may_be_sent_again(tmp_path, line, retry_safe):
    far = FarEnd(tmp_path / "nf.sock", die_on=(line,))
    ctl = NfControl(str(tmp_path / "nf.sock"), timeout=5)
    assert ctl.request("ping") == (["7"], b"")
    with pytest.raises(ChannelBroken) as broken:
        ctl.request(line)
    assert broken.value.retry_safe is retry_safe and far.requests[-1] == line


def test_a_connection_closed_while_idle_fails_the_next_request_unsent_and_reconnect_restores_it(tmp_path):
    far = FarEnd(tmp_path / "nf.sock", die_on=("ping",))
    ctl = NfControl(str(tmp_path / "nf.sock"), timeout=5)
    with pytest.raises(ChannelBroken):
        ctl.request("ping")                       # the far end closes the connection
    with pytest.raises(ChannelBroken) as broken:
        ctl.request("buffer take")                # not sent: safe to send again
    assert broken.value.retry_safe and far.requests == ["ping"]
    ctl.reconnect()
    assert ctl.request("stats") == (["7"], b"") and far.requests == ["ping", "stats"]


def test_a_far_end_gone_between_requests_is_seen_before_sending(tmp_path):
    """The daemon died between two requests: the idle connection reads as closed, so a take is not sent into it."""
    path = tmp_path / "nf.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    ctl = NfControl(str(path), timeout=5)
    conn, _ = server.accept()
    conn.close()                                  # the far end dies while nothing is asked
    with pytest.raises(ChannelBroken) as broken:
        ctl.request("buffer take")
    assert broken.value.retry_safe and "closed" in str(broken.value)
    server.close()
