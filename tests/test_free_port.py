"""The harness's free ports: a port is never handed out twice in one run, so servers a test starts together
(OneSwitch's listen, south and REST ports, the agent's) never get the same one. Before, 2,000 draws from the
12,000 ports repeated some almost surely, and a server failed with "Address already in use"."""
from __future__ import annotations

import socket

from uno_harness.processes import free_port


def test_ports_are_never_handed_out_twice_and_are_bindable():
    ports = [free_port() for _ in range(2000)]
    assert len(set(ports)) == len(ports)
    assert all(20000 <= p < 32000 for p in ports)
    with socket.socket() as s:
        s.bind(("127.0.0.1", free_port()))
