"""Issue 15, item 5: over an SSL southbound a bridge is who its certificate says. A local process cannot
connect as a bridge: not without SSL, not without a certificate, not with one from another CA, and not
with another switch's certificate while claiming this switch's datapath id (it used to kick the real
bridge off and forge its PACKET_INs)."""
from __future__ import annotations

import pathlib
import socket
import ssl
import struct

import pytest
from oneswitch_stack import ofctl, rest, revalidate

from uno_platform import pki
from uno_platform.traffic import ping

pytestmark = pytest.mark.platform

HELLO = struct.pack("!BBHI", 4, 0, 8, 1)


def features_reply(xid: int, datapath_id: int) -> bytes:
    return struct.pack("!BBHIQIBB2xII", 4, 6, 32, xid, datapath_id, 0, 254, 0, 0, 0)


def impersonate(port: int, context: ssl.SSLContext | None, datapath_id: int) -> str:
    """Connects as a bridge claiming `datapath_id`; says how far it got."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        if context is None:
            raw.sendall(HELLO)
            got = raw.recv(8)
            return "closed" if not got or got[0] != 4 else "openflow without ssl"
        try:
            s = context.wrap_socket(raw)
            s.sendall(HELLO)
            got, spoke = b"", False
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return "closed after openflow" if spoke else "closed after handshake"
                got, spoke = got + chunk, True
                while len(got) >= 8:
                    _, msg_type, length, xid = struct.unpack("!BBHI", got[:8])
                    if len(got) < length:
                        break
                    got = got[length:]
                    if msg_type == 5:  # FEATURES_REQUEST
                        s.sendall(features_reply(xid, datapath_id))
        except (ssl.SSLError, ConnectionError) as e:
            return f"refused: {type(e).__name__}"
        except TimeoutError:
            return "accepted"
    finally:
        raw.close()


def client_context(key=None, cert=None) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if cert:
        ctx.load_cert_chain(cert, key)
    return ctx


def test_only_a_bridge_with_its_own_certificate_connects_as_that_bridge(oneswitch_stack, tmp_path):
    stack = oneswitch_stack(controller=False, ssl=True, vms=2)
    desc = stack.platform.description
    assert desc["switches"][0]["controller"].startswith("ssl:")
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
    ofctl(stack.target, "add-flow", "priority=10,in_port=2,actions=output:1")
    revalidate(stack.platform)
    vms = desc["vms"]
    assert ping(vms[0]["netns"], vms[1]["ip"].split("/")[0], count=3), "forwarding over the SSL southbound"

    host_dpid = int(desc["switches"][0]["datapath_id"], 16)
    own = pki.Pki(pathlib.Path(desc["ssl"]["pki_dir"]))
    foreign = pki.create(tmp_path / "foreign", ["host"])
    # Only what the attempts caused: the bridge's first SSL connection was once (one run of seven, in make test)
    # closed by Open vSwitch 40 ms after it connected, before any attempt, and it reconnected a second later.
    log_before = stack.oneswitch.log.stat().st_size
    attempts = {
        "plain tcp": impersonate(stack.south, None, host_dpid),
        "no certificate": impersonate(stack.south, client_context(), host_dpid),
        "another CA": impersonate(stack.south, client_context(foreign.private_key("host"),
                                                              foreign.certificate("host")), host_dpid),
        "another switch's certificate": impersonate(stack.south, client_context(own.private_key("snic0"),
                                                                                own.certificate("snic0")), host_dpid),
    }
    for how, outcome in attempts.items():
        assert outcome.startswith(("closed", "refused")), (how, outcome)
    assert attempts["another switch's certificate"] == "closed after openflow", attempts

    health = rest(stack.rest, "GET", "/v1/health")[1]
    assert all(sw["connected"] for sw in health["switches"]), health
    log = stack.oneswitch.log.read_bytes()[log_before:].decode(errors="replace")
    assert "physical switch host disconnected" not in log, "the real bridge was never kicked off"
    assert "with the certificate of" in log
    assert ping(vms[0]["netns"], vms[1]["ip"].split("/")[0], count=3)
