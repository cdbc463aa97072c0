"""Agent configuration and the flavor catalog: defaults, overrides, loud errors."""
import json

import pytest

from uno_agent import catalog, config


def test_defaults_are_loopback_and_complete():
    cfg = config.load()
    assert (cfg.host, cfg.port) == ("127.0.0.1", 8774)
    assert cfg.token is None
    assert cfg.oneswitch_url == "http://127.0.0.1:8181"
    assert str(cfg.database) == "/run/uno/uno-/agent/inventory.db"


def test_file_and_overrides_merge(tmp_path):
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    path = tmp_path / "agent.json"
    path.write_text(json.dumps({"listen": "127.0.0.1:9000", "token_file": str(token),
                                "monitor": {"interval_s": 1}}))
    cfg = config.load(str(path), {"platform": {"prefix": "t1-"}})
    assert cfg.port == 9000 and cfg.token == "s3cret"
    assert cfg.monitor.interval_s == 1.0 and cfg.monitor.replace_every == 5
    assert cfg.prefix == "t1-"


@pytest.mark.parametrize("data, reason", [
    ({"listen": "8774"}, "listen must be HOST:PORT"),
    ({"bogus": 1}, "unknown configuration key 'bogus'"),
    ({"monitor": {"interval": 1}}, "unknown configuration key 'monitor.interval'"),
    ({"monitor": {"smoothing": 0}}, "monitor.smoothing must be in"),
    ({"monitor": {"enabled": "yes"}}, "monitor.enabled must be a bool"),
    ({"monitor": 3}, "monitor must be an object"),
    ({"launcher": "docker"}, "launcher must be 'process' or 'libvirt'"),
    ({"token_file": "/nonexistent/token"}, "cannot read token_file"),
])
def test_bad_config_is_refused_naming_the_key(tmp_path, data, reason):
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(data))
    with pytest.raises(config.ConfigError, match=reason):
        config.load(str(path))


def test_default_flavors_load_with_costs():
    flavors = catalog.load()
    assert {"vm.small", "l2fw", "l7fw", "secgw", "monitor", "nat"} <= set(flavors)
    assert flavors["vm.small"].snic is None
    assert flavors["secgw"].accelerated
    # the paper's §5.3 profile: a DPI-like NF costs twice as much on the sNIC
    assert flavors["monitor"].snic.cpu_per_gbps == pytest.approx(2 * flavors["monitor"].host.cpu_per_gbps,
                                                                 rel=0.01)
    assert flavors["l2fw"].host.cpu(2.0) == pytest.approx(0.05 + 0.2)


def test_operator_flavors_replace_by_id(tmp_path):
    extra = tmp_path / "flavors.json"
    extra.write_text(json.dumps([{"id": "l2fw", "name": "faster ACL", "kind": "nf", "binary": "l2fw",
                                  "host": {"cpu_cores": 0, "cpu_per_gbps": 0.05, "mem_mb": 16},
                                  "snic": None}]))
    flavors = catalog.load(extra)
    assert flavors["l2fw"].name == "faster ACL" and flavors["l2fw"].snic is None
    assert "l7fw" in flavors


@pytest.mark.parametrize("flavor, reason", [
    ({"id": "x", "name": "x", "kind": "nf", "host": None, "snic": None, "binary": "x"}, "can run nowhere"),
    ({"id": "x", "name": "x", "kind": "nf", "host": None,
      "snic": {"cpu_cores": 1, "cpu_per_gbps": 1, "mem_mb": 1}}, "needs a binary"),
    ({"id": "x", "name": "x", "kind": "nf", "binary": "x", "host": {"cpu_cores": -1, "cpu_per_gbps": 1,
                                                                    "mem_mb": 1}, "snic": None}, "host"),
])
def test_bad_flavors_are_refused(tmp_path, flavor, reason):
    extra = tmp_path / "flavors.json"
    extra.write_text(json.dumps([flavor]))
    with pytest.raises(catalog.CatalogError, match=reason):
        catalog.load(extra)
