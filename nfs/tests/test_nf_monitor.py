"""monitor: passive asset monitoring, forwarding everything unchanged."""
from nftraffic import dns_exchange, http_session, ip_frames, tcp_session, wait_processed

from uno_nfs import decode_state

LINUX_SYN = [("MSS", 1460), ("SAckOK", b""), ("Timestamp", (1, 0)),
             ("NOP", None), ("WScale", 7)]


def test_learns_hosts_services_and_os_hints(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path)
    ssh = tcp_session("10.0.0.1", "10.0.1.22", 50000, 22, b"SSH-2.0-client\r\n",
                      b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n",
                      syn_options=LINUX_SYN)
    sent = http_session() + ssh + dns_exchange("www.example.org")
    wire.send(sent)
    got = ip_frames(wire.recv(count=len(sent), timeout=2.0))
    assert got == sent                                   # passive: unchanged
    wait_processed(nf, len(sent))

    assets = {a["ip"]: a for a in nf.ctl.command("assets")}
    assert set(assets) == {"10.0.0.1", "10.0.1.80", "10.0.1.22", "10.0.1.53"}
    client = assets["10.0.0.1"]
    assert client["mac"] == "02:00:00:00:00:01"
    assert client["os"] == "Linux"
    assert client["fingerprint"] == "64:8192:mss,sok,ts,nop,ws"
    services = {(s["port"], s["role"], s["app"])
                for a in assets.values() for s in a["services"]}
    assert (80, "server", "http:nginx/1.25") in services
    assert (80, "client", "http:curl/8.1") in services
    assert (22, "server", "ssh:SSH-2.0-OpenSSH_9.2p1 Debian-2") in services
    assert (53, "server", "dns") in services
    assert {s["port"] for s in assets["10.0.1.53"]["services"]} == {53}


def test_per_flow_counters_count_every_packet(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("monitor", tmp_path)
    sent = http_session()
    wire.send(sent * 3)
    wait_processed(nf, 3 * len(sent))
    state = decode_state(nf.ctl.state_get())
    by_dir = {(f.key.sport, f.key.dport): f for f in state.flows}
    assert by_dir[(40000, 80)].packets == 9                # 3 x (S, A, PA)
    assert by_dir[(80, 40000)].packets == 6                # 3 x (SA, PA)
    assert by_dir[(40000, 80)].bytes == 3 * sum(len(f) for f in sent[0:1] + sent[2:4])
    assert by_dir[(80, 40000)].nf["tcp_flags"] == 0x12 | 0x18
