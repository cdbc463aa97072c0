"""Malformed and random byte streams on both OpenFlow listeners: each offending connection gets an
OFPT_ERROR or is closed, and OneSwitch keeps serving everyone else (controllers, switches, traffic)."""
from __future__ import annotations

import random

import pytest
from oneswitch_stack import OfClient, ofctl, rest, revalidate

from uno_harness.attacks import OFP13, abuse, streams
from uno_platform.traffic import ping

pytestmark = pytest.mark.platform

def test_garbage_on_both_listeners_leaves_oneswitch_serving(oneswitch_stack):
    stack = oneswitch_stack(controller=False, vms=1)
    desc = stack.platform.description
    ofctl(stack.target, "add-flow", "priority=10,in_port=1,actions=output:2")
    ofctl(stack.target, "add-flow", "priority=10,in_port=2,actions=output:1")

    rng = random.Random(20171025)
    errors = 0
    for port in (stack.listen, stack.south):
        for name, payload, hello_first in streams(rng):
            reply = abuse(port, payload, hello_first)
            assert stack.oneswitch.alive(), f"OneSwitch died on {name!r} to port {port}"
            if port == stack.listen and hello_first and len(reply) > 16:
                errors += sum(1 for i in range(16, len(reply) - 1) if reply[i] == OFP13 and reply[i + 1] == 1)

    assert errors > 0, "malformed messages on the controller listener were answered with OFPT_ERROR"
    client = OfClient(stack.listen)
    assert client.echo(b"still there")
    client.close()
    status, health = rest(stack.rest, "GET", "/v1/health")
    assert status == 200 and all(s["connected"] for s in health["switches"]), health
    revalidate(stack.platform)
    assert ping(desc["vms"][0]["netns"], desc["ext"]["interfaces"][0]["ip"].split("/")[0])
