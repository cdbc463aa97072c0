"""Issue 16, point 4: a controller is never shown a port down that is not. At start, controller connections
begin their handshake once the bridges have reported their ports (bounded by switch_wait); at SIGTERM
OneSwitch closes its controller connections first, without PORT_STATUS, as Open vSwitch does."""
from __future__ import annotations

import time

import pytest
from oneswitch_stack import OfClient, start_oneswitch

pytestmark = pytest.mark.platform


def connect_early(port: int, timeout: float = 30) -> OfClient:
    deadline = time.monotonic() + timeout
    while True:
        try:
            return OfClient(port)
        except (ConnectionRefusedError, ConnectionResetError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def down(desc, ofp) -> bool:
    """A port shown down, but LOCAL: the host bridge's own LOCAL port, whose interface the platform leaves down, so
    it is down on the bridge too."""
    if desc.port_no == ofp.OFPP_LOCAL:
        return False
    return bool(desc.state & ofp.OFPPS_LINK_DOWN) or bool(desc.config & ofp.OFPPC_PORT_DOWN)


def test_no_port_is_shown_down_at_start_or_at_stop(oneswitch_stack, tmp_path):
    stack = oneswitch_stack(controller=False, vms=1)
    stack.oneswitch.stop()
    # OneSwitch again, and a controller connecting as soon as the listener is there, before the bridges are.
    stack.oneswitch = start_oneswitch(f"{stack.platform.description['state_dir']}/platform.json",
                                      tmp_path / "again.log", listen=stack.listen, south=stack.south,
                                      rest_port=stack.rest, controller=None)
    c = connect_early(stack.listen)
    p, ofp = c.parser, c.ofp
    c.send(p.OFPSetConfig(c.dp, 0, 128))  # a service connection that wants asynchronous messages
    c.send(p.OFPPortDescStatsRequest(c.dp, 0))
    reply = c.recv_until(ofp.OFPT_MULTIPART_REPLY)
    assert reply.body and not [d.port_no for d in reply.body if down(d, ofp)], reply.body
    statuses = []
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        try:
            msg = c.recv(timeout=0.5)
        except TimeoutError:
            continue
        if msg is not None and msg.msg_type == ofp.OFPT_PORT_STATUS:
            statuses.append(msg)
    assert not [m for m in statuses if down(m.desc, ofp)], statuses

    stack.oneswitch.popen.terminate()  # SIGTERM
    after = []
    while (msg := c.recv(timeout=10)) is not None:
        after.append(msg)
    stack.oneswitch.popen.wait(timeout=30)
    assert not [m for m in after if m.msg_type == ofp.OFPT_PORT_STATUS], after
    c.close()
