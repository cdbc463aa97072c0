"""The remote profile: the sNIC is a machine of its own, reached from the host only over authenticated channels.

What runs on the sNIC is started in its namespaces the way a process on a real DPU would be; what runs on the
host uses only the management link. A shortcut through this machine's shared files or sockets would fail these
tests: the sNIC sees neither the checkout nor the host's state, and the host never touches the sNIC's files.
"""
import ipaddress
import json
import os
import pathlib
import socket
import ssl
import struct
import subprocess
import time

import pytest

import uno_platform
from uno_nfs import ChannelBroken, NfControl
from uno_platform import machine, pki, port_pool
from uno_platform.errors import PlatformError
from uno_platform.remote import AGENT_NAME, EMULATED_NF_PORTS, OVSDB_PORT
from uno_platform.spec import Names
from uno_platform.switch_side import nf_peer_name
from uno_platform.system import wait_for
from uno_snicd import wire
from uno_snicd.client import RemoteError, SnicClient
from uno_snicd.daemon import HANDSHAKE_TIMEOUT

pytestmark = pytest.mark.platform

CHECKOUT = pathlib.Path(uno_platform.__file__).resolve().parents[2]
MGMT_SUBNET = "192.168.101.0/24"


@pytest.fixture
def remote(testbed_factory, tmp_path):
    return testbed_factory("remote", mgmt_subnet=MGMT_SUBNET, state_dir=str(tmp_path / "state"))


def on_snic(platform, *argv: str, user: str | None = None) -> subprocess.CompletedProcess:
    """Run a command on the sNIC, as root or as `user` (a process of the DPU, not the daemon)."""
    drop = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"] if user else []
    return subprocess.run([*machine.enter(platform.remote("snic0")["holder"]), *drop, *argv], capture_output=True,
                          text=True, timeout=30)


def nf_port(platform, name: str) -> str:
    """An NF port's name on `platform` (the only ports its sNIC daemon adds, deletes or plugs NFs into)."""
    return Names(platform.prefix).nf_port_prefix() + name


def broadcast_from_the_wire(platform, count: int) -> None:
    """`count` UDP broadcasts into the sNIC's wire port, from the outside world's namespace."""
    ext = platform.description["ext"]
    broadcast = ipaddress.ip_interface(ext["interfaces"][0]["ip"]).network.broadcast_address
    subprocess.run(["ip", "netns", "exec", ext["netns"], "python3", "-c",
                    "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); "
                    "s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1); "
                    f"[s.sendto(b'x', ('{broadcast}', 9)) for _ in range({count})]"], check=True, timeout=30)


def pool_name(platform, ifname: str) -> str | None:
    """The own name of a pool device on the sNIC renamed to `ifname` (uno_platform.port_pool), or None."""
    shown = on_snic(platform, "ip", "-j", "link", "show", "dev", ifname)
    alias = json.loads(shown.stdout)[0].get("ifalias", "") if shown.returncode == 0 else ""
    return alias.removeprefix(port_pool.ALIAS) if alias.startswith(port_pool.ALIAS) else None


def free_pool_pairs(platform) -> int:
    names = {link["ifname"] for link in json.loads(on_snic(platform, "ip", "-j", "link", "show").stdout)}
    return sum(f"sfrep{n}" in names and f"sfnet{n}" in names for n in range(EMULATED_NF_PORTS))


def daemon_address(platform) -> tuple[str, int]:
    host, port = platform.remote("snic0")["daemon"].rsplit(":", 1)
    return host, int(port)


def test_the_snic_sees_its_own_disk_and_processes_and_not_the_hosts(remote):
    state = pathlib.Path(remote.description["state_dir"])
    host_db = remote.switch("host")["ovsdb"].removeprefix("unix:")
    assert pathlib.Path(host_db).exists() and (CHECKOUT / "Makefile").exists()   # what the host has
    listing = on_snic(remote, "sh", "-c", f"ls -A {CHECKOUT}; ls {state} {host_db}; ls /srv/bin /srv/etc/uno")
    seen = listing.stdout.split()
    assert "Makefile" not in seen and "No such file" in listing.stderr
    assert "noop" in seen and "snic0-cert.pem" in seen                     # what was installed on it
    # The host's switch is out of reach, and the project is not importable there except what was installed.
    assert on_snic(remote, "ovs-vsctl", f"--db=unix:{host_db}", "--timeout=2", "show").returncode != 0
    assert on_snic(remote, "python3", "-c", "import uno_agent").returncode != 0
    assert on_snic(remote, "env", "PYTHONPATH=/srv/lib/python", "python3", "-c", "import uno_snicd").returncode == 0

    # A PID namespace of its own: no host process is in its /proc, so none of their roots (which would open the
    # host's files, its private keys among them) is reachable there.
    key = pathlib.Path(remote.description["remote"]["private_key"])
    through_proc = pathlib.Path(f"/proc/{os.getpid()}/root") / key.relative_to("/")
    assert through_proc.read_text().startswith("-----BEGIN")          # here, this process's root opens it
    stolen = on_snic(remote, "cat", str(through_proc))
    assert stolen.returncode != 0 and "BEGIN" not in stolen.stdout
    assert on_snic(remote, "cat", "/proc/1/comm").stdout.strip() == "sleep"              # the sNIC's init
    host_process = subprocess.Popen(["sleep", "3017.5"])                                 # one of the host's
    try:
        commands = on_snic(remote, "sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '").stdout
    finally:
        host_process.kill()
        host_process.wait()
    assert "ovs-vswitchd" in commands and "uno_snicd" in commands                         # its switch and daemon
    assert "3017.5" not in commands


def test_the_daemon_answers_the_agents_certificate_and_lets_oneswitchs_only_purge(remote, tmp_path):
    address = daemon_address(remote)
    creds = remote.description["remote"]
    agent = wire.context(ssl.Purpose.SERVER_AUTH, creds["certificate"], creds["private_key"], creds["ca_cert"])
    assert SnicClient(address, agent, "snic0").call("ping")["bridge"] == remote.switch("snic0")["bridge"]

    # Without a certificate the handshake fails (TLS 1.3 reports it at the first read).
    bare = ssl.create_default_context(cafile=creds["ca_cert"])
    bare.check_hostname = False
    with socket.create_connection(address, timeout=5) as raw:
        try:
            with bare.wrap_socket(raw) as sock:
                wire.send(sock, {"op": "list"})
                reply = wire.recv(sock)
        except (OSError, wire.ChannelError):
            reply = None
    assert reply is None

    # One named uno-agent by another CA.
    foreign_pki = pki.create(tmp_path / "foreign", ["snic0"], (AGENT_NAME,))
    foreign = wire.context(ssl.Purpose.SERVER_AUTH, str(foreign_pki.certificate(AGENT_NAME)),
                           str(foreign_pki.private_key(AGENT_NAME)), creds["ca_cert"])
    with pytest.raises(RemoteError):
        SnicClient(address, foreign, "snic0").call("start_nf", id="intruder", binary="noop", port="intrude")
    assert SnicClient(address, agent, "snic0").call("list")["nfs"] == {}

    # The agent refuses a daemon that is not its sNIC's.
    with pytest.raises(RemoteError, match="not 'snic1'"):
        SnicClient(address, agent, "snic1").call("ping")

    # OneSwitch's certificate (same PKI, another name): OneSwitch cannot reach the sNIC's Open vSwitch control
    # socket, so it asks the daemon to purge the switch's cached datapath flows after changing the bridge's rules,
    # and that is all it may ask.
    pki_dir = pathlib.Path(creds["certificate"]).parent
    oneswitch = SnicClient(address, wire.context(
        ssl.Purpose.SERVER_AUTH, str(pki_dir / "oneswitch-cert.pem"), str(pki_dir / "oneswitch-privkey.pem"),
        creds["ca_cert"]), "snic0")
    for op, args in (("list", {}), ("start_nf", {"id": "x", "binary": "noop", "port": nf_port(remote, "x")}),
                     ("add_port", {"port": nf_port(remote, "x")}), ("control", {"id": "x"})):
        with pytest.raises(RemoteError, match="not this client's"):
            oneswitch.call(op, **args)

    # Packets from the wire that no rule matches leave a cached datapath flow (a drop); the purge removes it. One
    # burst of broadcasts (no address to resolve, so nothing sent again later); flows are told by their ids, which
    # come from their keys, so another packet's flow cached meanwhile (the host's IPv6) does not count.
    def cached() -> set[str]:
        dump = on_snic(remote, "ovs-appctl", "-t", "/run/openvswitch/ovs-vswitchd.ctl", "dpctl/dump-flows", "-m")
        return {line.split(",", 1)[0] for line in dump.stdout.splitlines() if line.startswith("ufid:")}
    broadcast_from_the_wire(remote, 5)
    wait_for(lambda: cached(), 5, "a datapath flow on the sNIC")
    flows, before = cached(), oneswitch.call("ping")["purges"]
    assert oneswitch.call("purge_datapath")["ok"]
    assert not flows & cached() and oneswitch.call("ping")["purges"] == before + 1


def test_snic_processes_other_than_the_daemon_cannot_launch_read_state_or_connect(remote):
    client = remote.client("snic0")
    client.call("start_nf", id="nf-a", binary="noop", port=nf_port(remote, "a"))
    try:
        # A process on the sNIC without the daemon's rights: no key, no NF control socket, no daemon, no ovsdb.
        assert on_snic(remote, "cat", "/srv/etc/uno/snic0-privkey.pem", user="nobody").returncode != 0
        probe = ("import socket,sys; s=socket.socket(socket.AF_UNIX); "
                 "s.connect('/run/uno-snicd/nf-a.sock'); print('connected')")
        assert "connected" not in on_snic(remote, "python3", "-c", probe, user="nobody").stdout
        assert on_snic(remote, "python3", "-c", probe).stdout.strip() == "connected"   # root on the sNIC can
        host, port = daemon_address(remote)
        plain = ("import socket,struct; s=socket.create_connection(('%s', %d), timeout=5); m=b'%s'; "
                 "s.sendall(struct.pack('!I', len(m)) + m); print(s.recv(4096))")
        start = b'{"op":"start_nf","id":"x","binary":"noop","port":"xp"}'
        on_snic(remote, "python3", "-c", plain % (host, port, start.decode()), user="nobody")
        list_dbs = '{"method":"list_dbs","params":[],"id":0}'
        answer = on_snic(remote, "python3", "-c", plain % (host, OVSDB_PORT, list_dbs), user="nobody")
        assert "Open_vSwitch" not in answer.stdout
        assert list(client.call("list")["nfs"]) == ["nf-a"]
    finally:
        client.call("stop_nf", id="nf-a")


def test_ovsdb_of_the_snic_is_reached_over_ssl_with_the_hosts_certificate_only(remote, tmp_path):
    bridge = remote.switch("snic0")["bridge"]
    assert remote.switch("snic0")["ovsdb"].startswith("ssl:")
    assert bridge in remote.vsctl("snic0", "list-br").split()
    foreign = pki.create(tmp_path / "foreign", ["snic0"], (AGENT_NAME,))
    refused = subprocess.run(["ovs-vsctl", f"--db={remote.switch('snic0')['ovsdb']}", "--timeout=3",
                              f"--private-key={foreign.private_key(AGENT_NAME)}",
                              f"--certificate={foreign.certificate(AGENT_NAME)}",
                              f"--ca-cert={remote.description['remote']['ca_cert']}", "list-br"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0 and bridge not in refused.stdout


def test_nf_on_the_snic_is_started_and_controlled_through_the_daemon(remote):
    client = remote.client("snic0")
    started = client.call("start_nf", id="nf-b", binary="monitor", port=nf_port(remote, "b"), hold_packets=64)
    # its port is a pair the sNIC had before (as a BlueField's SFs), renamed: the bridge's end and the NF's
    port = nf_port(remote, "b")
    assert pool_name(remote, port) == "sfrep0" and pool_name(remote, nf_peer_name(port)) == "sfnet0"
    assert free_pool_pairs(remote) == EMULATED_NF_PORTS - 1
    assert started["ofport"] in [int(x) for x in remote.vsctl("snic0", "--columns=ofport", "find", "Interface",
                                                                f"name={nf_port(remote, 'b')}").split()[-1:]]
    with NfControl("snic0/nf-b", connect=lambda: client.control("nf-b")) as nf:
        assert nf.ping() and nf.stats()["nf"] == "monitor"
        assert nf.stats()["buffer_state"] != "off"          # started as a migration target: it holds
    assert client.call("alive", id="nf-b")["alive"]
    assert remote.port_backlog("snic0", nf_port(remote, "b")) == 0 and remote.port_up("snic0", nf_port(remote, "b"))
    with pytest.raises(RemoteError, match="already runs"):
        client.call("start_nf", id="nf-b", binary="monitor", port=nf_port(remote, "c"))
    # the sNIC's own interfaces are not the agent's: neither its PCIe link end nor its management link
    pcie_end = remote.description["pcie_links"][0]["snic_port"]
    for port in (pcie_end, "tmfifo_net0"):
        with pytest.raises(RemoteError, match="must be an NF port"):
            client.call("start_nf", id="nf-c", binary="monitor", port=port)
        with pytest.raises(RemoteError, match="must be an NF port"):
            client.call("remove_port", port=port)
    assert pcie_end in remote.vsctl("snic0", "list-ports", remote.switch("snic0")["bridge"]).split()
    with pytest.raises(RemoteError, match="another NF's"):
        client.call("start_nf", id="nf-c", binary="monitor", port=nf_port(remote, "b"))
    with pytest.raises(RemoteError, match="binary must be"):
        client.call("start_nf", id="nf-c", binary="../../bin/sh", port=nf_port(remote, "c"))
    with pytest.raises(RemoteError, match="did not start"):
        client.call("start_nf", id="nf-c", binary="l7fw", port=nf_port(remote, "c"), config="no such keyword\n")
    assert nf_port(remote, "c") not in remote.vsctl("snic0", "list-ports", remote.switch("snic0")["bridge"]).split()
    assert client.call("stop_nf", id="nf-b")["stopped"]
    assert not client.call("alive", id="nf-b")["alive"]
    assert nf_port(remote, "b") not in remote.vsctl("snic0", "list-ports", remote.switch("snic0")["bridge"]).split()
    assert free_pool_pairs(remote) == EMULATED_NF_PORTS, "the pair has its own names again"
    with pytest.raises(PlatformError, match="daemon starts the NFs"):
        remote.spawn("snic0", ["true"])
    assert remote.cpu_seconds()["snic0"] > 0


def test_a_restarted_daemon_knows_its_nfs_and_the_agents_channels_come_back(remote):
    """The daemon dies (SIGKILL) with an NF running and a control channel open: the sNIC's init starts it
    again, it lists the same NF, the channel fails once without sending, and made again it reaches the same NF."""
    client = remote.client("snic0")
    started = client.call("start_nf", id="nf-r", binary="monitor", port=nf_port(remote, "r"))
    nf = NfControl("snic0/nf-r", connect=lambda: client.control("nf-r"))
    try:
        assert nf.ping()
        before = client.call("ping")["pid"]
        assert remote.kill_daemon("snic0") == before
        with pytest.raises(ChannelBroken) as broken:
            nf.stats()
        assert broken.value.retry_safe
        wait_for(lambda: _pid_or_none(client) not in (None, before), 15, "the daemon to come back")
        listed = client.call("list")["nfs"]
        assert listed["nf-r"]["pid"] == started["pid"] and listed["nf-r"]["alive"]
        nf.reconnect()
        assert nf.stats()["nf"] == "monitor"
    finally:
        nf.close()
    assert client.call("stop_nf", id="nf-r")["stopped"]          # an NF the previous daemon started
    assert not client.call("alive", id="nf-r")["alive"] and client.call("list")["nfs"] == {}
    assert free_pool_pairs(remote) == EMULATED_NF_PORTS, "its port went back to the pool"


def _pid_or_none(client: SnicClient) -> int | None:
    try:
        return client.call("ping")["pid"]
    except RemoteError:
        return None


def test_the_daemon_answers_garbage_from_the_agent_and_survives_a_client_that_dies_halfway(remote):
    """With the agent's certificate, a client that sends non-JSON, a JSON array, an unknown request, an oversized
    length, or half a message and dies: each such connection is answered or closed, and the daemon serves on."""
    creds = remote.description["remote"]
    tls = wire.context(ssl.Purpose.SERVER_AUTH, creds["certificate"], creds["private_key"], creds["ca_cert"])
    client = SnicClient(daemon_address(remote), tls, "snic0")

    def exchange(raw: bytes) -> dict | None:
        with client.connect() as sock:
            sock.sendall(raw)
            try:
                return wire.recv(sock)
            except (OSError, wire.ChannelError):
                return None

    assert exchange(framed(b"not json")) is None                 # the daemon closes a connection that breaks
    assert exchange(framed(b"[1, 2]")) is None                   # the protocol
    assert "unknown request" in exchange(framed(b'{"op": "reboot"}'))["error"]
    assert "must match" in exchange(framed(b'{"op": "alive", "id": "../x"}'))["error"]
    assert exchange(struct.pack("!I", wire.MAX_MESSAGE + 1)) is None
    with client.connect() as sock:                               # half a message, then the client dies
        sock.sendall(struct.pack("!I", 100) + b'{"op": "pi')
    assert client.call("ping")["bridge"] == remote.switch("snic0")["bridge"]


def framed(body: bytes) -> bytes:
    """`body` with the channel's length header, whatever it holds."""
    return struct.pack("!I", len(body)) + body


def test_connections_that_never_authenticate_do_not_lock_the_agent_out(remote):
    """Anyone who reaches the daemon's address can open TCP connections: they take handshake places only, which
    time out, so the agent's connection keeps working and a new one is accepted once they did."""
    client = remote.client("snic0")
    assert client.call("ping")
    squatters = [socket.create_connection(daemon_address(remote), timeout=5) for _ in range(60)]
    try:
        assert client.call("ping")                          # the agent's open connection is not disturbed
        time.sleep(HANDSHAKE_TIMEOUT + 1.0)                 # the squatters' handshakes time out
        creds = remote.description["remote"]
        fresh = SnicClient(daemon_address(remote), wire.context(ssl.Purpose.SERVER_AUTH, creds["certificate"],
                                                                creds["private_key"], creds["ca_cert"]), "snic0")
        assert fresh.call("ping")
        fresh.close()
    finally:
        for sock in squatters:
            sock.close()


def test_the_loss_report_counts_the_snics_drops_through_its_daemon(remote):
    """With no rules on the sNIC's bridge, what enters its wire port is dropped there: the report, which gets the
    sNIC's counters from its daemon, puts those drops on the sNIC's datapath."""
    def pipeline_drops() -> int:
        report = remote.status(losses=True)["losses"]
        assert set(report["pcie_shapers"]["snic0"]) == {"host_to_snic", "snic_to_host"}
        return sum(report["switches"]["snic0"]["datapath_drops"].values())

    before = pipeline_drops()
    broadcast_from_the_wire(remote, 5)
    wait_for(lambda: pipeline_drops() >= before + 5, 10, "the sNIC to count the drops")


def test_the_management_link_carries_no_plaintext_control_or_state(remote, tmp_path):
    marker = "uno-plaintext-marker-7f3a9c"
    capture = tmp_path / "mgmt.pcap"
    link = remote.remote("snic0")["host_ifname"]
    tcpdump = subprocess.Popen(["tcpdump", "-i", link, "-U", "-s", "0", "-w", str(capture), "tcp"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(1.0)   # tcpdump is listening once it has opened the interface
        client = remote.client("snic0")
        client.call("start_nf", id="nf-d", binary="l7fw", port=nf_port(remote, "d"), config=f"# {marker}\n")
        with NfControl("snic0/nf-d", connect=lambda: client.control("nf-d")) as nf:
            state = nf.state_get()
            nf.state_put(state, replace=True)
        client.call("stop_nf", id="nf-d")
        # The capture would show plaintext: the same marker sent in the clear to the daemon's port.
        with socket.create_connection(daemon_address(remote), timeout=5) as raw:
            raw.sendall(f"control {marker}-clear\n".encode())
        time.sleep(1.0)
    finally:
        tcpdump.terminate()
        tcpdump.wait(timeout=10)
    data = capture.read_bytes()
    assert f"{marker}-clear".encode() in data, "the capture does not see the link's payload"
    assert data.count(marker.encode()) == 1, "the NF config crossed the management link in plaintext"
    assert b"state" not in data.replace(f"{marker}-clear".encode(), b"")


def test_remote_profile_refuses_what_it_cannot_do(testbed_factory, tmp_path):
    with pytest.raises(uno_platform.SpecError, match="ssl"):
        testbed_factory("remote", controller="tcp:127.0.0.1:6653", state_dir=str(tmp_path))
    with pytest.raises(uno_platform.SpecError, match="mgmt-subnet"):
        testbed_factory("remote", mgmt_subnet="192.168.101.0/31", state_dir=str(tmp_path))


def test_two_remote_testbeds_cannot_share_a_management_subnet(remote, testbed_factory, tmp_path):
    with pytest.raises(uno_platform.SpecError, match="already on an interface"):
        testbed_factory("remote", mgmt_subnet=MGMT_SUBNET, state_dir=str(tmp_path / "other"))
    assert remote.status()["healthy"]
