"""Issue 15, items 2 and 9: OneSwitch's REST server serves clients concurrently, gives each a deadline for a
whole request, limits how many connections are open, can demand a token, and keeps to its OpenAPI document."""
from __future__ import annotations

import socket
import subprocess
import sys

import pytest
from oneswitch_stack import rest, wait_for

from uno_agent.errors import Conflict
from uno_agent.oneswitch import PortMapper
from uno_harness.attacks import SlowHttp

pytestmark = pytest.mark.platform


def test_slow_clients_do_not_block_others_and_are_cut_off_at_the_deadline(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1, oneswitch_args=("--rest-request-timeout", "3"))
    with SlowHttp("127.0.0.1", stack.rest, connections=8) as lines, \
            SlowHttp("127.0.0.1", stack.rest, connections=8, body=True) as bodies:
        # Before, one unfinished request held the only worker thread: everyone else waited without end.
        for _ in range(5):
            status, health = rest(stack.rest, "GET", "/v1/health", timeout=2)
            assert status == 200, health
        status, mapping = rest(stack.rest, "GET", "/v1/ports/1", timeout=2)
        assert status == 200 and mapping["virtual_port"] == 1
        wait_for(lambda: lines.closed_by_peer() == 8 and bodies.closed_by_peer() == 8, 10,
                 "the slow requests cut off at their deadline")
    assert rest(stack.rest, "GET", "/v1/health", timeout=2)[0] == 200


def test_connections_past_the_limit_are_turned_away_and_idle_ones_closed(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1, oneswitch_args=(
        "--rest-max-connections", "4", "--rest-idle-timeout", "2"))
    idle = [socket.create_connection(("127.0.0.1", stack.rest), timeout=5) for _ in range(4)]
    try:
        wait_for(lambda: rest(stack.rest, "GET", "/v1/health", timeout=2)[0] == 503, 5, "the limit reached")
        status, body = rest(stack.rest, "GET", "/v1/health", timeout=2)
        assert status == 503 and "too many REST connections" in body["error"]
        # The idle ones are closed after the idle timeout, and the server serves again.
        for s in idle:
            s.settimeout(5)
            assert s.recv(1) == b""
        assert rest(stack.rest, "GET", "/v1/health", timeout=2)[0] == 200
    finally:
        for s in idle:
            s.close()


def test_a_token_is_demanded_when_configured(oneswitch_stack, tmp_path):
    token_file = tmp_path / "rest-token"
    token_file.write_text("s3cret\n")
    stack = oneswitch_stack(controller=False, vms=1, oneswitch_args=("--rest-token-file", str(token_file)))
    assert rest(stack.rest, "GET", "/v1/ports")[0] == 401
    assert rest(stack.rest, "GET", "/v1/ports", token="wrong")[0] == 401
    assert rest(stack.rest, "POST", "/v1/ports", {"switch": "host", "ofport": 3})[0] == 401
    assert rest(stack.rest, "GET", "/v1/ports", token="s3cret")[0] == 200
    assert rest(stack.rest, "GET", "/v1/health")[0] == 200, "liveness stays open"
    assert rest(stack.rest, "GET", "/v1/openapi.json")[0] == 200
    # The NF agent's client sends it when configured (oneswitch_token_file).
    url = f"http://127.0.0.1:{stack.rest}"
    assert PortMapper(url, "s3cret").mappings()
    with pytest.raises(Conflict, match="X-Auth-Token"):
        PortMapper(url).mappings()


def test_generated_requests_keep_to_the_openapi_document(oneswitch_stack, tmp_path):
    """Schemathesis drives the API from its own document: no 5xx, every answer's status and body as documented."""
    token_file = tmp_path / "rest-token"
    token_file.write_text("fuzz")
    stack = oneswitch_stack(controller=False, vms=1, oneswitch_args=("--rest-token-file", str(token_file)))
    result = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "run", f"http://127.0.0.1:{stack.rest}/v1/openapi.json",
         "--header", "X-Auth-Token: fuzz",
         "--checks", "not_a_server_error,response_schema_conformance,status_code_conformance",
         "--max-examples", "20", "--workers", "1", "--phases", "examples,coverage,fuzzing",
         "--seed", "7", "--generation-database", "none", "--suppress-health-check", "all", "--no-color"],
        capture_output=True, text=True, timeout=600)
    (tmp_path / "schemathesis.txt").write_text(result.stdout + result.stderr)
    print(result.stdout[-3000:])
    assert result.returncode == 0, result.stdout[-6000:]
    assert "No issues found" in result.stdout or "passed" in result.stdout, result.stdout[-3000:]
