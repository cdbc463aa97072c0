"""Hardware profiles rendered from a TestbedSpec, checked against the vendors' documented names and settings and
against the programs that read them (bash, systemd, uno-snicd's own argument parser). No root, no NIC."""
from __future__ import annotations

import argparse
import configparser
import dataclasses
import json
import pathlib
import re
import shlex
import shutil
import stat
import subprocess

import pytest

from uno_platform import hardware_cli, pki
from uno_platform.base import validate_description
from uno_platform.errors import SpecError
from uno_platform.hardware import PROFILES, netronome, render
from uno_platform.spec import SNIC_MODELS, Names, TestbedSpec, mgmt_links
from uno_snicd.__main__ import parse_args

SPEC = TestbedSpec(snics=2, wire_ports=2, controller="ssl:10.0.0.9:6653")
NAMES = Names(SPEC.prefix)
# The documented names (DOCA "DPU Kernel Representors Model", BlueField BSP SF representor naming).
BLUEFIELD_SNIC_PORTS = ["pf0hpf", "p0", "p1"]
# The NF SFs (sfnums 1-8), which uno-snicd puts on the bridge one per NF, renamed: representor and netdev.
BLUEFIELD_NF_PORTS = [{"representor": f"en3f0pf0sf{n}", "netdev": f"enp3s0f0s{n}"} for n in range(1, 9)]


HOST_PF1 = "ens2f0np0"        # the second DPU's host PF: given when rendering, as to host/ovs-setup.sh


@pytest.fixture(autouse=True)
def second_pf(monkeypatch):
    monkeypatch.setenv("UNO_HOST_PF1", HOST_PF1)


@pytest.fixture(scope="module")
def bluefield() -> dict[str, str]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("UNO_HOST_PF1", HOST_PF1)
        return render(SPEC, "bluefield")


@pytest.fixture(scope="module")
def nfp() -> dict[str, str]:
    return render(SPEC, "netronome")


def vsctl(script: str) -> list[list[str]]:
    """Every ovs-vsctl command of `script` (a transaction's commands split at '--', without their options)."""
    commands = []
    for line in script.splitlines():
        if line.startswith("ovs-vsctl "):
            words = shlex.split(line)[1:]
            while words:
                cut = words.index("--") if "--" in words else len(words)
                command = [w for w in words[:cut] if not w.startswith("--")]
                commands += [command] if command else []
                words = words[cut + 1:]
    return commands


def ports(script: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for command in vsctl(script):
        if command[0] == "add-port":
            found.setdefault(command[1], []).append(command[2])
    return found


def settings(script: str, table: str, record: str) -> dict[str, str]:
    found = {}
    for command in vsctl(script):
        if command[:3] == ["set", table, record]:
            found.update(word.split("=", 1) for word in command[3:])
    return found


def ini(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read_string(text)
    return parser


def address(cidr: str) -> str:
    return cidr.split("/")[0]


@pytest.mark.parametrize("profile", ["bluefield", "netronome"])
def test_every_script_is_valid_bash_and_every_file_is_in_the_readme(profile):
    files = render(SPEC, profile)
    for path, text in files.items():
        if path.endswith(".sh"):
            result = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, timeout=30)
            assert result.returncode == 0, f"{path}: {result.stderr}"
            assert text.startswith("#!/bin/bash\n") and "set -euo pipefail" in text
    assert all(path in files["README.txt"] for path in files if path != "README.txt")


def test_each_dpu_bridge_holds_the_documented_representors(bluefield):
    for i in range(SPEC.snics):
        script = bluefield[f"snic{i}/ovs-setup.sh"]
        assert ports(script) == {NAMES.switch_bridge(f"snic{i}"): BLUEFIELD_SNIC_PORTS}
        # numbered as the emulated platform numbers its PCIe and wire ports
        assert settings(script, "Interface", "pf0hpf") == {"ofport_request": "1", "mtu_request": str(SPEC.pcie_mtu)}
        assert settings(script, "Interface", "p0") == {"ofport_request": "2"}
        assert settings(script, "Interface", "p1") == {"ofport_request": "3"}


def test_each_dpu_offloads_and_is_reached_over_ssl_on_its_management_link(bluefield):
    for i, (host_cidr, snic_cidr) in enumerate(mgmt_links(SPEC)):
        script = bluefield[f"snic{i}/ovs-setup.sh"]
        bridge = NAMES.switch_bridge(f"snic{i}")
        assert settings(script, "Open_vSwitch", ".")["other_config:hw-offload"] == "true"
        assert script.index("other_config:hw-offload=true") < script.index("systemctl restart openvswitch-switch")
        assert settings(script, "Bridge", bridge)["fail_mode"] == "secure"
        commands = vsctl(script)
        assert ["set-manager", f"pssl:6640:{address(snic_cidr)}"] in commands
        assert ["set-ssl", f"/etc/uno/snic{i}-privkey.pem", f"/etc/uno/snic{i}-cert.pem",
                "/etc/uno/controllerca.pem"] in commands
        assert ["set-controller", bridge, f"ssl:{address(host_cidr)}:6653"] in commands


def test_the_daemon_unit_starts_uno_snicd_with_flags_it_accepts(bluefield, tmp_path):
    for i, (_, snic_cidr) in enumerate(mgmt_links(SPEC)):
        service = ini(bluefield[f"snic{i}/uno-snicd.service"])["Service"]
        argv = shlex.split(service["ExecStart"])
        assert argv[:3] == ["/usr/bin/python3", "-m", "uno_snicd"]
        flags = argv[3:]
        assert flags[flags.index("--bin-dir") + 1] == "/opt/uno/bin"
        flags[flags.index("--bin-dir") + 1] = str(tmp_path)       # parse_args checks that it exists
        # NF ports are the DPU's SFs, listed where pki's keys go; the daemon reads the rendered list as it is
        assert flags[flags.index("--nf-port-pool") + 1] == "/etc/uno/nf-ports.json"
        assert json.loads(bluefield[f"snic{i}/nf-ports.json"]) == BLUEFIELD_NF_PORTS
        (tmp_path / "nf-ports.json").write_text(bluefield[f"snic{i}/nf-ports.json"])
        flags[flags.index("--nf-port-pool") + 1] = str(tmp_path / "nf-ports.json")
        args = parse_args(flags)
        assert [dataclasses.asdict(p) for p in args.pool.pairs] == BLUEFIELD_NF_PORTS
        assert args.address == (address(snic_cidr), 7340)
        assert (args.client_name, args.switch_client_name) == ("uno-agent", "oneswitch")
        assert args.bridge == NAMES.switch_bridge(f"snic{i}") and args.nf_port_prefix == NAMES.nf_port_prefix()
        assert (args.certificate, args.private_key, args.ca_cert) == (
            f"/etc/uno/snic{i}-cert.pem", f"/etc/uno/snic{i}-privkey.pem", "/etc/uno/controllerca.pem")
        assert args.run_dir == pathlib.Path("/run") / service["RuntimeDirectory"] == pathlib.Path("/run/uno-snicd")
        assert shlex.split(service["ExecStartPre"]) == ["/bin/mkdir", "-p", args.cgroup_cpu, args.cgroup_cpuacct]
        assert (service["Restart"], service["RestartSec"], service["KillMode"]) == ("always", "0.5s", "process")
        assert service["ProtectSystem"] == "strict" and "ProtectControlGroups" not in service


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_daemon_unit_passes_systemd_analyze_verify(bluefield, tmp_path):
    unit = tmp_path / "uno-snicd.service"
    unit.write_text(bluefield["snic0/uno-snicd.service"])
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], capture_output=True, text=True,
                            timeout=60)
    assert (result.returncode, result.stderr) == (0, "")     # unknown keys and bad values are only warned about


def test_keys_and_certificates_are_where_pki_create_puts_them(bluefield, tmp_path):
    snics = [f"snic{i}" for i in range(SPEC.snics)]
    placement = pki.placement(pki.Pki(tmp_path), snics, ("oneswitch", "uno-agent"))
    for sw in snics:
        installed = set(placement[sw].values())
        named = next(c for c in vsctl(bluefield[f"{sw}/ovs-setup.sh"]) if c[0] == "set-ssl")[1:]
        argv = shlex.split(ini(bluefield[f"{sw}/uno-snicd.service"])["Service"]["ExecStart"])
        assert set(named) == installed == {argv[argv.index(flag) + 1]
                                           for flag in ("--certificate", "--private-key", "--ca-cert")}
    host_ssl = next(c for c in vsctl(bluefield["host/ovs-setup.sh"]) if c[0] == "set-ssl")[1:]
    assert set(host_ssl) <= set(placement["host"].values())


def test_management_addresses_are_the_spec_links_and_differ_per_dpu(bluefield):
    links = mgmt_links(SPEC)
    for i, (host_cidr, snic_cidr) in enumerate(links):
        snic = ini(bluefield[f"snic{i}/05-uno-tmfifo_net0.network"])
        host = ini(bluefield[f"host/05-uno-tmfifo_net{i}.network"])
        assert (snic["Match"]["Name"], snic["Network"]["Address"]) == ("tmfifo_net0", snic_cidr)
        assert (host["Match"]["Name"], host["Network"]["Address"]) == (f"tmfifo_net{i}", host_cidr)
    assert links[0] == ("192.168.100.1/30", "192.168.100.2/30")    # BlueField's documented tmfifo addresses
    assert len({addr for link in links for addr in link}) == 2 * SPEC.snics
    bridges = [next(iter(ports(bluefield[f"snic{i}/ovs-setup.sh"]))) for i in range(SPEC.snics)]
    datapath_ids = [settings(bluefield[f"snic{i}/ovs-setup.sh"], "Bridge", b)["other_config:datapath-id"]
                    for i, b in enumerate(bridges)]
    assert len(set(bridges)) == len(set(datapath_ids)) == SPEC.snics


def test_the_host_bridge_takes_each_dpus_pf_with_a_default_for_the_first(bluefield):
    script = bluefield["host/ovs-setup.sh"]
    host_bridge = NAMES.switch_bridge("host")
    assert ports(script) == {host_bridge: ["$PF0", "$PF1"]}
    assert ["set-controller", host_bridge, SPEC.controller] in vsctl(script)
    assignments = "\n".join(line for line in script.splitlines() if line.startswith("PF"))
    shown = subprocess.run(["bash", "-c", f'{assignments}\necho "$PF0 $PF1"'], capture_output=True, text=True,
                           env={"UNO_HOST_PF1": "ens2f0np0"}, timeout=30)
    assert shown.stdout == "ens1f0np0 ens2f0np0\n"
    missing = subprocess.run(["bash", "-c", assignments], capture_output=True, text=True, env={}, timeout=30)
    assert missing.returncode != 0 and "UNO_HOST_PF1" in missing.stderr


def test_the_platform_description_is_valid_and_agrees_with_the_scripts_units_and_keys(bluefield, tmp_path):
    """host/platform.json is what OneSwitch and the agent run with on the server: it names the bridges, ports and
    ofports the scripts make, the daemons' addresses their units listen on, and the files `pki create` installs."""
    description = json.loads(bluefield["host/platform.json"])
    validate_description(description)
    switches = {sw["id"]: sw for sw in description["switches"]}
    host = switches["host"]
    assert host["netns"] is None and host["ovsdb"] == "unix:/var/run/openvswitch/db.sock"
    host_script = bluefield["host/ovs-setup.sh"]
    assert list(ports(host_script)) == [host["bridge"]]
    assert [(p["name"], p["ofport"]) for p in host["ports"]] == [("ens1f0np0", 1), (HOST_PF1, 2)]
    assert all(f"ofport_request={p['ofport']}" in host_script for p in host["ports"])
    placement = pki.placement(pki.Pki(tmp_path), list(switches)[1:], ("oneswitch", "uno-agent"))
    on_host = set(placement["host"].values())
    for i, (host_cidr, snic_cidr) in enumerate(mgmt_links(SPEC)):
        sw = switches[f"snic{i}"]
        script = bluefield[f"snic{i}/ovs-setup.sh"]
        assert list(ports(script)) == [sw["bridge"]]
        named = ports(script)[sw["bridge"]]
        assert [p["name"] for p in sw["ports"]] == named[:1 + SPEC.wire_ports]      # pf0hpf, p0, p1
        assert all(f"{p['name']} -- set Interface {p['name']} ofport_request={p['ofport']}" in script
                   for p in sw["ports"])
        unit = shlex.split(ini(bluefield[f"snic{i}/uno-snicd.service"])["Service"]["ExecStart"])
        assert sw["machine"]["daemon"] == unit[unit.index("--listen") + 1] == f"{address(snic_cidr)}:7340"
        assert (sw["machine"]["host_ip"], sw["machine"]["snic_ip"]) == (host_cidr, snic_cidr)
        assert sw["ovsdb"] == f"ssl:{address(snic_cidr)}:6640" and sw["ssl_certificate"] in on_host
    for section in ("ssl", "remote"):
        assert {description[section][k] for k in ("private_key", "certificate", "ca_cert")} <= on_host
    assert host["ssl_certificate"] in on_host
    # OneSwitch reads it as it will on the server
    jar = pathlib.Path(__file__).resolve().parents[2] / "oneswitch/target/oneswitch.jar"
    (tmp_path / "platform.json").write_text(bluefield["host/platform.json"])
    checked = subprocess.run(["java", "-jar", str(jar), "--platform", str(tmp_path / "platform.json"),
                              "--check-config"], capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stderr


def test_the_platform_description_needs_every_dpus_host_pf(monkeypatch):
    monkeypatch.delenv("UNO_HOST_PF1")
    with pytest.raises(SpecError, match="UNO_HOST_PF1"):
        render(SPEC, "bluefield")
    assert "host/platform.json" in render(TestbedSpec(), "bluefield")            # one DPU: its PF has a default


def test_netronome_offloads_through_tc_with_no_snic_daemon(nfp):
    script = nfp["host/ovs-setup.sh"]
    config = settings(script, "Open_vSwitch", ".")
    assert (config["other_config:hw-offload"], config["other_config:tc-policy"]) == ("true", "none")
    assert script.index("tc-policy=none") < script.index("systemctl restart openvswitch-switch")
    assert sorted(nfp) == ["README.txt", "host/ovs-setup.sh"]
    assert "NFs are pinned to the host" in nfp["README.txt"]


def test_netronome_bridges_hold_the_representors_the_driver_names(nfp):
    script = nfp["host/ovs-setup.sh"]
    resolved = {m[1]: (m[2], m[3], m[4]) for m in
                re.finditer(r'^(\w+)="\$\((nfp_representor|nfp_vf) "\$(PF\d)" (\w+)\)"$', script, re.MULTILINE)}
    bridges = ports(script)
    assert set(bridges) == {NAMES.switch_bridge(sw) for sw in ("host", "snic0", "snic1")}
    for i in range(SPEC.snics):
        # phys_port_name: VF representors pf0vf<N>, physical ports p<N> (nfp_port_get_phys_port_name)
        assert [resolved[p.lstrip("$")] for p in bridges[NAMES.switch_bridge(f"snic{i}")]] == [
            ("nfp_representor", f"PF{i}", "pf0vf0"), ("nfp_representor", f"PF{i}", "p0"),
            ("nfp_representor", f"PF{i}", "p1")]
    assert [resolved[p.lstrip("$")] for p in bridges[NAMES.switch_bridge("host")]] == [
        ("nfp_vf", "PF0", "0"), ("nfp_vf", "PF1", "0")]


def test_netronome_representors_are_found_by_switch_id_and_port_name(tmp_path):
    """The rendered shell functions, run against a fake sysfs with two cards."""
    def netdev(name: str, switch_id: str | None = None, port_name: str | None = None) -> pathlib.Path:
        path = tmp_path / "sys/class/net" / name
        path.mkdir(parents=True)
        for attribute, value in (("phys_switch_id", switch_id), ("phys_port_name", port_name)):
            if value is not None:
                (path / attribute).write_text(value + "\n")
        return path

    for pf, card, wire in (("p5p1", "00154d13510c", "enp4s0np0"), ("p6p1", "00154d135999", "enp6s0np0")):
        device = netdev(pf) / "device"
        (device / "net").mkdir(parents=True)
        for name, path in ((pf, device.parent), (wire, netdev(wire, card, "p0"))):
            (device / "net" / name).symlink_to(path)    # the PF's PCI device lists its netdevs (sysfs links)
        (device / "virtfn0/net" / f"{pf}v0").mkdir(parents=True)
    netdev("eth1", "00154d135999", "pf0vf0")     # the other card's VF representor comes first
    netdev("eth2", "00154d13510c", "pf0vf0")
    functions = netronome.SHELL_FUNCTIONS.replace("/sys/", f"{tmp_path}/sys/")

    def run(call: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", f"set -euo pipefail\n{functions}\n{call}"], capture_output=True,
                              text=True, timeout=30)

    assert run("nfp_representor p5p1 pf0vf0").stdout == "eth2\n"
    assert run("nfp_representor p6p1 p0").stdout == "enp6s0np0\n"
    assert run("nfp_vf p5p1 0").stdout == "p5p1v0\n"
    missing = run("nfp_representor p5p1 pf0vf3")
    assert missing.returncode != 0 and "pf0vf3" in missing.stderr


@pytest.mark.parametrize("profile, changes, reason", [
    ("bluefield", {"datapath": "dpdk"}, "use --datapath veth"),
    ("netronome", {"datapath": "dpdk"}, "use --datapath veth"),
    ("bluefield", {"wire_ports": 3}, "at most 2 Ethernet ports"),
    ("netronome", {"wire_ports": 3}, "at most 2 Ethernet ports"),
    ("bluefield", {"controller": "tcp:10.0.0.9:6653"}, "over ssl: only"),
    ("netronome", {"snics": 0}, "--snics must be between"),
    ("bluefield", {"mgmt_subnet": "192.168.100.0/30", "snics": 2}, "room for fewer than 2"),
])
def test_what_the_hardware_cannot_do_is_refused(profile, changes, reason):
    with pytest.raises(SpecError, match=re.escape(reason)):
        render(TestbedSpec(**changes), profile)


def test_every_profile_is_an_snic_model_and_unknown_profiles_are_refused():
    assert set(PROFILES) <= set(SNIC_MODELS) and SNIC_MODELS["bluefield"] and not SNIC_MODELS["netronome"]
    with pytest.raises(SpecError, match="unknown hardware profile 'tile-gx'"):
        render(TestbedSpec(), "tile-gx")


def unoctl_render(*argv: str) -> int:
    parser = argparse.ArgumentParser(prog="unoctl")
    hardware_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["render", *argv])
    return args.func(args)


def test_render_writes_the_files_scripts_executable(tmp_path, capsys):
    out = tmp_path / "out"
    assert unoctl_render("bluefield", "--out", str(out), "--snics", "2") == 0
    expected = render(TestbedSpec(snics=2), "bluefield")
    written = {str(p.relative_to(out)): p for p in out.rglob("*") if p.is_file()}
    assert sorted(written) == sorted(expected)
    for path, file in written.items():
        assert file.read_text() == expected[path]
        assert stat.S_IMODE(file.stat().st_mode) == (0o755 if path.endswith(".sh") else 0o644)
    assert str(out) in capsys.readouterr().out


def test_render_refuses_to_overwrite_unless_forced(tmp_path):
    out = tmp_path / "out"
    unoctl_render("netronome", "--out", str(out))
    script = out / "host/ovs-setup.sh"
    script.write_text("edited\n")
    with pytest.raises(SystemExit) as refused:
        unoctl_render("netronome", "--out", str(out))
    assert str(refused.value).startswith("unoctl render: ") and "--force" in str(refused.value)
    assert "\n" not in str(refused.value) and script.read_text() == "edited\n"
    assert unoctl_render("netronome", "--out", str(out), "--force") == 0
    assert script.read_text() == render(TestbedSpec(), "netronome")["host/ovs-setup.sh"]


def test_render_takes_a_recipe_and_flags_override_it(tmp_path):
    recipe = tmp_path / "recipe.json"
    recipe.write_text('{"snics": 2, "wire-ports": 2}')
    unoctl_render("bluefield", "--out", str(tmp_path / "out"), "--config", str(recipe), "--wire-ports", "1")
    assert (tmp_path / "out/snic1/ovs-setup.sh").exists()
    assert ports((tmp_path / "out/snic0/ovs-setup.sh").read_text())["uno-snic"] == ["pf0hpf", "p0"]


@pytest.mark.parametrize("argv, reason", [
    (["bluefield", "--wire-ports", "3"], "at most 2 Ethernet ports"),
    (["netronome", "--datapath", "dpdk"], "use --datapath veth"),
    (["bluefield", "--prefix", "Bad_"], "must start with a lowercase letter"),
])
def test_render_fails_on_bad_input_with_one_line_and_writes_nothing(argv, reason, tmp_path):
    with pytest.raises(SystemExit) as failed:
        unoctl_render(*argv, "--out", str(tmp_path / "out"))
    message = str(failed.value)
    assert message.startswith("unoctl render: ") and reason in message and "\n" not in message
    assert not (tmp_path / "out").exists()


def test_render_has_help_and_rejects_unknown_profiles(capsys):
    with pytest.raises(SystemExit) as shown:
        unoctl_render("--help")
    assert shown.value.code == 0
    assert "bluefield" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        unoctl_render("tile-gx", "--out", "/nonexistent")
    assert refused.value.code == 2
