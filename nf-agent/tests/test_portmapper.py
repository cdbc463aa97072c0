"""The agent's OneSwitch client over a real HTTP socket: refusals become Conflict, failures and 5xx
Unavailable, each with OneSwitch's reason; a token goes in X-Auth-Token."""
from __future__ import annotations

import http.server
import json
import socket
import threading

import pytest

from uno_agent.errors import Conflict, Unavailable
from uno_agent.oneswitch import PortMapper


class _OneSwitchLike(http.server.BaseHTTPRequestHandler):
    """Answers by path: /v1/ports lists a port (with the right token), /v1/ports/7 is missing,
    /v1/ports/9 is refused, /v1/health fails."""

    def _answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path == "/v1/health":
            self._answer(503, {"error": "waiting for switches"})
        elif self.headers.get("X-Auth-Token") != "s3cret":
            self._answer(401, {"error": "no token"})
        else:
            self._answer(200, {"ports": [{"virtual_port": 3, "switch": "host", "port": "vm0"}]})

    def do_DELETE(self):  # noqa: N802
        self._answer(404, {"error": "virtual port 7 is not mapped"})

    def do_PUT(self):  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        self._answer(409, {"error": "no port ghost on host"})

    def log_message(self, *args):
        pass


@pytest.fixture
def oneswitch_url():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _OneSwitchLike)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_answers_and_refusals_keep_oneswitchs_reason(oneswitch_url):
    mapper = PortMapper(oneswitch_url, "s3cret")
    assert mapper.mappings() == {3: ("host", "vm0")}
    mapper.remove(7)  # not mapped any more: fine
    with pytest.raises(Conflict, match="no port ghost on host"):
        mapper.remap(9, "host", "ghost")
    with pytest.raises(Unavailable, match="503 waiting for switches"):
        mapper.health()
    with pytest.raises(Conflict, match="no token"):
        PortMapper(oneswitch_url).mappings()


def test_nothing_listening_is_unavailable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, never listening: connections are refused
        with pytest.raises(Unavailable, match="does not answer: ConnectionRefusedError"):
            PortMapper(f"http://127.0.0.1:{port}").mappings()
