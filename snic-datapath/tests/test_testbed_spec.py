"""Validation of testbed requests and the names derived from a prefix (no root needed)."""
import json

import pytest

from uno_platform.errors import SpecError
from uno_platform.spec import IFNAME_MAX, Names, TestbedSpec, parse_controller


def test_default_spec_is_valid():
    TestbedSpec().validate()


@pytest.mark.parametrize("changes, reason", [
    ({"pcie_gbps": -1}, "--pcie-gbps must be between"),
    ({"pcie_gbps": 0}, "--pcie-gbps must be between"),
    ({"snic_cores": 0}, "--snic-cores must be between"),
    ({"snics": 0}, "--snics must be between"),
    ({"vms": -2}, "--vms must be between"),
    ({"wire_ports": 17}, "--wire-ports must be between"),
    ({"prefix": "Bad_"}, "must start with a lowercase letter"),
    ({"prefix": "9x"}, "must start with a lowercase letter"),
    ({"controller": "tcp:localhost:6653"}, "is not an IP address"),
    ({"controller": "127.0.0.1:6653"}, "must look like tcp:IP:PORT"),
    ({"controller": "tcp:127.0.0.1:70000"}, "port must be 1-65535"),
    ({"datapath": "afxdp"}, "--datapath must be one of veth, dpdk"),
])
def test_impossible_values_are_refused_with_a_reason(changes, reason):
    with pytest.raises(SpecError, match=reason):
        TestbedSpec(**changes).validate()


def test_prefix_too_long_for_interface_names_says_how_long_it_may_be():
    with pytest.raises(SpecError) as err:
        TestbedSpec(prefix="averylongprefix-", wire_ports=12).validate()
    message = str(err.value)
    assert "longer than 15 characters" in message
    # the longest interface is '<prefix>w0p11' (5 characters of suffix)
    assert f"at most {IFNAME_MAX - 5} characters" in message


def test_every_interface_of_the_longest_allowed_prefix_fits():
    spec = TestbedSpec(prefix="abcdefghij", snics=1, wire_ports=9, vms=9)
    spec.validate()
    assert max(len(n) for n in Names(spec.prefix).interfaces(spec)) <= IFNAME_MAX


def test_names_of_different_prefixes_never_match_each_other():
    spec = TestbedSpec(snics=3, vms=12)
    a, b = Names("uno-"), Names("uno-vm1")
    assert not any(a.netns_pattern().match(ns) for ns in b.namespaces(spec))
    assert all(a.netns_pattern().match(ns) for ns in a.namespaces(spec))
    assert not set(a.interfaces(spec)) & set(b.interfaces(spec))


def test_controller_target_is_parsed():
    assert parse_controller("tcp:127.0.0.1:6643") == ("127.0.0.1", 6643)


def test_spec_json_has_what_the_description_needs():
    data = TestbedSpec(controller="tcp:127.0.0.1:6643").to_json()
    assert data == {"pcie_gbps": 10.0, "snic_cores": 2.0, "snics": 1, "wire_ports": 1, "vms": 1,
                    "controller": "tcp:127.0.0.1:6643", "pcie_mtu": 1600, "datapath": "veth",
                    "mgmt_subnet": "192.168.100.0/24", "pki_dir": None,
                    "snic_model": "generic"}
    json.dumps(data)
