"""The SQLite inventory: round trips, updates, persistence across reopen."""
import pytest

from uno_agent.inventory import Inventory, Server


def make(server_id="s1", **fields):
    fields.setdefault("created_at", 1.0)
    return Server(id=server_id, name=fields.pop("name", server_id), flavor="monitor", kind="nf",
                  status="BUILD", **fields)


def test_round_trip_and_update(tmp_path):
    inv = Inventory(tmp_path / "inv.db")
    inv.add(make(config={"nf_config": "rule", "expected_gbps": 1.5}))
    server = inv.update("s1", status="ACTIVE", side="snic0", vport=7, pid=123, pid_start=456)
    assert server == inv.get("s1")
    assert (server.status, server.side, server.vport) == ("ACTIVE", "snic0", 7)
    assert server.config == {"nf_config": "rule", "expected_gbps": 1.5}


def test_survives_reopen(tmp_path):
    inv = Inventory(tmp_path / "inv.db")
    inv.add(make("a", created_at=2.0))
    inv.add(make("b"))
    inv.update("a", status="ACTIVE")
    inv.close()
    again = Inventory(tmp_path / "inv.db")
    assert [s.id for s in again.list()] == ["b", "a"]   # ordered by creation time
    assert again.get("a").status == "ACTIVE"


def test_unknown_fields_and_servers_are_errors(tmp_path):
    inv = Inventory(tmp_path / "inv.db")
    inv.add(make())
    with pytest.raises(KeyError, match="unknown server fields"):
        inv.update("s1", colour="red")
    with pytest.raises(KeyError, match="no server"):
        inv.update("nope", status="ACTIVE")
    assert inv.get("nope") is None
    inv.delete("s1")
    assert inv.list() == []


def test_a_version_1_inventory_is_upgraded_in_place_keeping_its_servers(tmp_path):
    import sqlite3

    from uno_agent import inventory
    db = sqlite3.connect(tmp_path / "inv.db", isolation_level=None)
    columns = {k: v for k, v in inventory._COLUMNS.items() if k != "spare"}   # version 1 had no spare ports
    db.execute(f"CREATE TABLE servers ({', '.join(f'{k} {v}' for k, v in columns.items())})")
    db.execute("PRAGMA user_version=1")
    db.execute("INSERT INTO servers (id, name, flavor, kind, status, config, created_at) "
               "VALUES ('s1', 'mon', 'monitor', 'nf', 'ACTIVE', '{}', 1.0)")
    db.close()
    inv = Inventory(tmp_path / "inv.db")
    assert inv.get("s1").spare is None and inv.get("s1").status == "ACTIVE"
    inv.update("s1", spare={"side": "host", "port": "uno-n0"})
    inv.close()
    assert Inventory(tmp_path / "inv.db").get("s1").spare == {"side": "host", "port": "uno-n0"}
    version = sqlite3.connect(tmp_path / "inv.db").execute("PRAGMA user_version").fetchone()[0]
    assert version == inventory.SCHEMA_VERSION == 2
