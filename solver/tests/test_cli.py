"""`unoctl place`: a table by default, JSON with --json, one-line errors on bad input."""
from __future__ import annotations

import json

import pytest

from uno_agent.unoctl import OneLineParser
from uno_solver import cli


def run(argv: list[str]) -> int:
    parser = OneLineParser(prog="unoctl")
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.fixture
def graph_file(tmp_path, doc):
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(doc))
    return path


def test_table(graph_file, capsys):
    assert run(["place", str(graph_file)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("status: optimal (fast, ")
    assert "objective 2," in out[0]
    rows = {line.split()[0]: line.split()[1:] for line in out[2:6]}
    assert rows == {"vm0": ["vm", "host"], "fw": ["nf", "snic0"], "dpi": ["nf", "snic0"], "eth0": ["port", "snic0"]}
    assert out[-1] == "snic0: cpu 8/8, mem 1/4; PCIe 2/10 Gbps"


def test_json(graph_file, capsys):
    assert run(["place", str(graph_file), "--json", "--method", "brute"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["schema"] == "uno-placement/1" and result["status"] == "optimal"
    assert result["placement"] == {"vm0": "host", "fw": "snic0", "dpi": "snic0", "eth0": "snic0"}
    assert result["snics"]["snic0"] == {"usage": {"cpu": 8.0, "mem": 1.0}, "capacity": {"cpu": 8.0, "mem": 4.0},
                                        "pcie_gbps": 2.0, "pcie_limit": 10.0}
    assert result["host"] == {"cpu": 2.0, "mem": 0.0} and result["objective"] == 2.0


def test_infeasible_exits_1_with_the_reason(tmp_path, doc, capsys):
    doc["snics"][0]["pcie_gbps"] = 1.0
    path = tmp_path / "g.json"
    path.write_text(json.dumps(doc))
    assert run(["place", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("status: infeasible")
    assert out[1].startswith("why: snic0.pcie_gbps: whatever the placement, at least 2 Gbps")


def test_check_only_validates(graph_file, capsys):
    assert run(["place", "--check", str(graph_file)]) == 0
    assert "valid: 4 nodes, 4 edges, 1 sNIC(s), resources cpu, mem" in capsys.readouterr().out


@pytest.mark.parametrize("content,message", [
    ("{", "not JSON"),
    ('{"schema": "uno-placement-graph/1"}', "resources: missing"),
])
def test_bad_graph_is_one_line(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(SystemExit) as exit_:
        run(["place", str(path)])
    text = str(exit_.value.code)
    assert "\n" not in text and text.startswith(f"unoctl place: {path}: ") and message in text


def test_bad_field_is_named(tmp_path, doc):
    doc["edges"][0]["dst"] = "nowhere"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SystemExit, match=r"edges\[0\]\.dst: unknown node 'nowhere'"):
        run(["place", str(path)])


def test_missing_file(tmp_path):
    with pytest.raises(SystemExit, match="cannot read .*: No such file or directory"):
        run(["place", str(tmp_path / "none.json")])


@pytest.mark.parametrize("argv", [["place", "g.json", "--gap", "-1"], ["place", "g.json", "--time-limit", "0"],
                                  ["place", "g.json", "--method", "magic"], ["place"]])
def test_bad_options_exit_2_with_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        run(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "(see --help)" in err


def test_brute_force_refuses_big_graphs(tmp_path):
    from uno_solver.instances import chain_graph
    path = tmp_path / "big.json"
    path.write_text(chain_graph(200, 0, tight=True).to_json())
    with pytest.raises(SystemExit, match="brute force: .* placements exceed the limit"):
        run(["place", str(path), "--method", "brute"])
