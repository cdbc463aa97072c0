"""OneSwitch keeps its active connection to the controller: it retries with backoff until the
controller is there, negotiates OpenFlow 1.3, and reconnects after the controller drops it."""
from __future__ import annotations

import socket
import struct
import time

from oneswitch_stack import free_port, start_oneswitch, wait_healthy


def read_message(conn: socket.socket) -> bytes:
    data = b""
    while len(data) < 8 or len(data) < struct.unpack("!H", data[2:4])[0]:
        chunk = conn.recv(65536)
        assert chunk, "connection closed"
        data += chunk
    return data


def accept_hello(server: socket.socket) -> tuple[socket.socket, bytes]:
    conn, _ = server.accept()
    conn.settimeout(5)
    conn.sendall(struct.pack("!BBHI", 4, 0, 8, 1))  # HELLO, OpenFlow 1.3
    return conn, read_message(conn)


def test_active_connection_retries_and_reconnects(oneswitch_jar, tmp_path):
    ctl, listen, south, rest_port = free_port(), free_port(), free_port(), free_port()
    proc = start_oneswitch(None, tmp_path / "oneswitch.log", listen=listen, south=south, rest_port=rest_port,
                           controller=ctl)
    try:
        wait_healthy(proc, rest_port)
        time.sleep(2.5)  # a few failed attempts: OneSwitch backs off but keeps trying
        with socket.create_server(("127.0.0.1", ctl)) as server:
            server.settimeout(15)
            conn, hello = accept_hello(server)
            version, msg_type, _, _ = struct.unpack("!BBHI", hello[:8])
            assert (version, msg_type) == (4, 0), "OneSwitch greets its controller with an OpenFlow 1.3 HELLO"
            conn.sendall(struct.pack("!BBHI", 4, 5, 8, 77))  # FEATURES_REQUEST
            _, reply_type, _, xid = struct.unpack("!BBHI", read_message(conn)[:8])
            assert (reply_type, xid) == (6, 77), "FEATURES_REPLY to the request"
            conn.close()
            again, _ = accept_hello(server)  # dropped: OneSwitch comes back by itself
            again.close()
        assert proc.alive()
    finally:
        proc.stop()
