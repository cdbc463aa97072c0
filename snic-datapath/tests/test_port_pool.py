"""NF ports from a pool made beforehand (a BlueField's SFs), on real links in a namespace of the test's own: a pair is
renamed to the agent's port and its NF end, given its own names back, found in use again by a new pool object (a
restarted daemon) from the kernel alone, and a full pool refuses with a reason."""
from __future__ import annotations

import json
import subprocess

import pytest

from uno_platform import port_pool, system
from uno_platform.errors import PlatformError, SpecError
from uno_platform.switch_side import make_veth
from uno_platform.testing import unique_prefix

pytestmark = pytest.mark.platform


@pytest.fixture
def netns():
    name = unique_prefix() + "pool"
    subprocess.run(["ip", "netns", "add", name], check=True)
    yield name
    subprocess.run(["ip", "netns", "del", name], check=True)


def ifindex(name: str, netns: str) -> int:
    return json.loads(system.run(["ip", "-n", netns, "-j", "link", "show", "dev", name]))[0]["ifindex"]


def test_a_pair_is_renamed_for_a_port_given_back_and_known_in_use_after_a_restart(netns, tmp_path):
    pool_file = tmp_path / "nf-ports.json"
    pool_file.write_text(json.dumps([{"representor": f"sfrep{n}", "netdev": f"sfnet{n}"} for n in range(2)]))
    pairs = port_pool.load(pool_file)
    for p in pairs:
        make_veth(p.representor, netns, p.netdev, netns)
    made = {p.representor: ifindex(p.representor, netns) for p in pairs} | {
        p.netdev: ifindex(p.netdev, netns) for p in pairs}

    pool = port_pool.PortPool(pairs, netns)
    pool.take("uno-nf1", "uno-nf1x")
    assert ifindex("uno-nf1", netns) == made["sfrep0"] and ifindex("uno-nf1x", netns) == made["sfnet0"]
    assert not system.link_exists("sfrep0", netns)

    restarted = port_pool.PortPool(port_pool.load(pool_file), netns)   # knows nothing but the kernel's names
    restarted.take("uno-nf2", "uno-nf2x")
    assert ifindex("uno-nf2", netns) == made["sfrep1"], "the pair in use was not taken again"
    with pytest.raises(PlatformError, match="no free NF port: all 2 of the pool are in use"):
        restarted.take("uno-nf3", "uno-nf3x")

    assert restarted.give_back("uno-nf1", "uno-nf1x")
    assert {n: ifindex(n, netns) for n in ("sfrep0", "sfnet0")} == {n: made[n] for n in ("sfrep0", "sfnet0")}
    assert not system.link_exists("uno-nf1", netns)
    make_veth("other", netns, "otherx", netns)
    assert not restarted.give_back("other", "otherx"), "a link of no pair is not the pool's"
    restarted.take("uno-nf3", "uno-nf3x")
    assert ifindex("uno-nf3x", netns) == made["sfnet0"]


@pytest.mark.parametrize("content, reason", [
    ("[]", "a list of 1 to"),
    ('[{"representor": "a"}]', "each pair is"),
    ('[{"representor": "a", "netdev": "a"}]', "is not a distinct interface name"),
    ('[{"representor": "a-name-too-long-x", "netdev": "b"}]', "is not a distinct interface name"),
    ("{", "NF port pool"),
])
def test_a_bad_pool_file_is_refused_with_its_reason(tmp_path, content, reason):
    path = tmp_path / "pool.json"
    path.write_text(content)
    with pytest.raises(SpecError, match=reason):
        port_pool.load(path)
