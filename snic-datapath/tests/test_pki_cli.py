"""`unoctl pki create`: the certificates an operator installs, checked by using them as the daemon and the agent
do (a TLS handshake with the files where they go), not by their names alone."""
from __future__ import annotations

import json
import pathlib
import socket
import ssl
import stat
import threading

import pytest

from uno_agent.unoctl import main
from uno_snicd import wire


def create(capsys, *args: str) -> dict:
    assert main(["pki", "create", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def installed(placement: dict, machine: str, name: str) -> str:
    """The file of `placement` for `machine` whose destination ends in `name`."""
    return next(src for src, dest in placement[machine].items() if dest.endswith("/" + name))


def handshake(server: ssl.SSLContext, client: ssl.SSLContext) -> tuple[ssl.SSLSocket, ssl.SSLSocket]:
    a, b = socket.socketpair()
    done = {}
    thread = threading.Thread(target=lambda: done.setdefault("server", server.wrap_socket(a, server_side=True)))
    thread.start()
    try:
        done["client"] = client.wrap_socket(b)
    finally:
        thread.join(10)
    return done["server"], done["client"]


def test_the_snic_daemon_and_the_agent_accept_each_other_with_the_installed_files(tmp_path, capsys):
    placement = create(capsys, "--dir", str(tmp_path / "pki"), "--snics", "2")
    assert set(placement) == {"host", "snic0", "snic1"}
    assert {pathlib.PurePath(d).name for d in placement["snic1"].values()} == \
        {"snic1-privkey.pem", "snic1-cert.pem", "controllerca.pem"}
    # the host has the sNICs' certificates (OneSwitch pins them), never their keys
    host = {pathlib.PurePath(d).name for d in placement["host"].values()}
    assert {"snic0-cert.pem", "snic1-cert.pem"} <= host and not any(n.startswith("snic") for n in host - {
        "snic0-cert.pem", "snic1-cert.pem"})
    for machine in placement.values():
        for source in machine:
            if source.endswith("privkey.pem"):
                assert stat.S_IMODE(pathlib.Path(source).stat().st_mode) & 0o077 == 0, source
    daemon = wire.context(ssl.Purpose.CLIENT_AUTH, installed(placement, "snic1", "snic1-cert.pem"),
                          installed(placement, "snic1", "snic1-privkey.pem"),
                          installed(placement, "snic1", "controllerca.pem"))
    agent = wire.context(ssl.Purpose.SERVER_AUTH, installed(placement, "host", "uno-agent-cert.pem"),
                         installed(placement, "host", "uno-agent-privkey.pem"),
                         installed(placement, "host", "switchca.pem"))
    server, client = handshake(daemon, agent)
    wire.check_peer(server, "uno-agent")
    wire.check_peer(client, "snic1")
    # OneSwitch's certificate is one the sNIC's CA signed too, but the daemon answers the agent's name only
    oneswitch = wire.context(ssl.Purpose.SERVER_AUTH, installed(placement, "host", "oneswitch-cert.pem"),
                             installed(placement, "host", "oneswitch-privkey.pem"),
                             installed(placement, "host", "switchca.pem"))
    server, _ = handshake(daemon, oneswitch)
    with pytest.raises(wire.ChannelError, match="oneswitch"):
        wire.check_peer(server, "uno-agent")


def test_an_existing_pki_is_kept_and_bad_input_fails_in_one_line(tmp_path, capsys):
    create(capsys, "--dir", str(tmp_path / "pki"))
    for args, reason in (([], "already holds a PKI"), (["--snics", "0"], "between 1 and")):
        with pytest.raises(SystemExit, match=reason):
            main(["pki", "create", "--dir", str(tmp_path / "pki"), *args])
