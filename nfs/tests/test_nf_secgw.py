"""secgw: ESP tunnel mode with AES-GCM, interoperating with scapy's
SecurityAssociation and tshark's ESP dissector."""
import subprocess

from nftraffic import TO_SERVER, exchange, ip_frames, wait_processed
from scapy.layers.inet import IP, UDP
from scapy.layers.ipsec import ESP, SecurityAssociation
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import wrpcap

from uno_nfs import decode_state

LOCAL, REMOTE = "192.0.2.1", "192.0.2.2"
OUT_KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0fa0a1a2a3")
IN_KEY = bytes.fromhex("101112131415161718191a1b1c1d1e1f"
                       "202122232425262728292a2b2c2d2e2fb0b1b2b3")  # AES-256
CONFIG = f"""
replay-window 64
sa out spi 0x1000 key 0x{OUT_KEY.hex()} local {LOCAL} remote {REMOTE} src 10.1.0.0/16 dst 10.2.0.0/16
sa in spi 0x2000 key 0x{IN_KEY.hex()} local {LOCAL} remote {REMOTE} src 10.2.0.0/16 dst 10.1.0.0/16
"""


def peer_out_sa():
    """The peer's view of our outbound SA: it decrypts what secgw sends."""
    return SecurityAssociation(ESP, spi=0x1000, crypt_algo="AES-GCM",
                               crypt_key=OUT_KEY,
                               tunnel_header=IP(src=LOCAL, dst=REMOTE))


def peer_in_sa():
    """The peer's view of our inbound SA: it encrypts what secgw receives."""
    return SecurityAssociation(ESP, spi=0x2000, crypt_algo="AES-GCM",
                               crypt_key=IN_KEY,
                               tunnel_header=IP(src=REMOTE, dst=LOCAL))


def cleartext(i: int, size: int = 30):
    return IP(src="10.1.0.5", dst="10.2.0.9") / UDP(sport=1000 + i, dport=2000) \
        / Raw(bytes([i % 256]) * (size + i))


def esp_frames(frames):
    return [f for f in frames if ESP in Ether(f)]


def test_what_secgw_encrypts_scapy_decrypts(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("secgw", tmp_path, config=CONFIG)
    inner = [cleartext(i) for i in range(20)]
    wire.send(bytes(TO_SERVER / p) for p in inner)
    got = esp_frames(wire.recv(count=20, keep=lambda f: ESP in Ether(f)))
    assert len(got) == 20
    sa = peer_out_sa()
    for i, frame in enumerate(got):
        outer = Ether(frame)[IP]
        assert (outer.src, outer.dst, outer[ESP].spi, outer[ESP].seq) \
            == (LOCAL, REMOTE, 0x1000, i + 1)
        assert bytes(sa.decrypt(outer)) == bytes(inner[i])
    assert nf.ctl.stats()["counters"]["encrypted"] == 20
    # Traffic outside the selector passes as it is (bypass pass).
    other = bytes(TO_SERVER / IP(src="10.9.0.1", dst="10.2.0.9") / UDP())
    wire.send([other])
    assert wire.recv(count=1, keep=lambda f: f == other) == [other]


def test_tshark_decrypts_a_capture_of_secgw_output(ns, tmp_path):
    wire = ns.wire()
    ns.start_nf("secgw", tmp_path, config=CONFIG)
    inner = [cleartext(i) for i in range(5)]
    wire.send(bytes(TO_SERVER / p) for p in inner)
    got = esp_frames(wire.recv(count=5, keep=lambda f: ESP in Ether(f)))
    pcap = tmp_path / "esp.pcap"
    wrpcap(str(pcap), [Ether(f) for f in got])
    sa = (f'"IPv4","{LOCAL}","{REMOTE}","0x00001000",'
          f'"AES-GCM with 16 octet ICV [RFC4106]","0x{OUT_KEY.hex()}",'
          '"NULL",""')
    out = subprocess.run(
        ["tshark", "-r", str(pcap), "-o", "esp.enable_encryption_decode:TRUE",
         "-o", f"uat:esp_sa:{sa}", "-T", "fields", "-e", "esp.sequence",
         "-e", "udp.srcport", "-e", "udp.dstport", "-e", "udp.length"],
        check=True, capture_output=True, text=True).stdout
    rows = [line.split("\t") for line in out.strip().splitlines()]
    assert rows == [[str(i + 1), str(1000 + i), "2000", str(8 + 30 + i)]
                    for i in range(5)]


def test_what_scapy_encrypts_secgw_decrypts(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("secgw", tmp_path, config=CONFIG)
    sa = peer_in_sa()
    inner = [IP(src="10.2.0.9", dst="10.1.0.5") / UDP(sport=53, dport=3000 + i)
             / Raw(b"reply %d" % i) for i in range(10)]
    wire.send(bytes(TO_SERVER / sa.encrypt(p)) for p in inner)
    got = ip_frames(wire.recv(count=10, keep=lambda f: UDP in Ether(f)))
    assert [bytes(Ether(f)[IP]) for f in got] == [bytes(p) for p in inner]
    assert all(Ether(f).type == 0x0800 for f in got)
    assert nf.ctl.stats()["counters"]["decrypted"] == 10


def test_replayed_tampered_and_unknown_packets_are_rejected_and_counted(ns, tmp_path):
    wire = ns.wire()
    nf = ns.start_nf("secgw", tmp_path, config=CONFIG)
    sa = peer_in_sa()

    def enc(seq: int) -> bytes:
        sa.seq_num = seq
        return bytes(TO_SERVER / sa.encrypt(
            IP(src="10.2.0.9", dst="10.1.0.5") / UDP(sport=53, dport=seq)))

    first, later = enc(1), enc(200)
    tampered = bytearray(enc(201))
    tampered[60] ^= 0x01                          # a ciphertext byte
    wrong_spi = bytes(TO_SERVER / SecurityAssociation(
        ESP, spi=0x3000, crypt_algo="AES-GCM", crypt_key=IN_KEY,
        tunnel_header=IP(src=REMOTE, dst=LOCAL)).encrypt(IP(src="10.2.0.9",
                                                            dst="10.1.0.5")))
    sa.seq_num = 202
    policy = bytes(TO_SERVER / sa.encrypt(IP(src="10.7.0.1", dst="10.1.0.5")
                                          / UDP(sport=53, dport=9)))
    # Window 64: after 200, 150 is inside (accepted once), 50 is left of it.
    got = ip_frames(exchange(wire, nf, [first, first, later, later,
                                        bytes(tampered), enc(150), enc(50),
                                        wrong_spi, policy]))
    assert sorted(Ether(f)[UDP].dport for f in got if UDP in Ether(f)) \
        == [1, 150, 200]
    counters = wait_processed(nf, 9)["counters"]
    assert counters["decrypted"] == 3
    assert counters["replayed"] == 2              # first and later, again
    assert counters["too_old"] == 1               # 50 < 200 - 64
    assert counters["auth_failed"] == 1
    assert counters["unknown_spi"] == 1
    assert counters["policy_mismatch"] == 1


def test_sequence_numbers_and_replay_window_move_with_the_state(ns, tmp_path):
    wire = ns.wire()
    a = ns.start_nf("secgw", tmp_path, config=CONFIG, tag="a")
    sa_in = peer_in_sa()
    replay = bytes(TO_SERVER / sa_in.encrypt(IP(src="10.2.0.9", dst="10.1.0.5")
                                             / UDP(sport=53, dport=1)))
    wire.send([bytes(TO_SERVER / cleartext(i)) for i in range(7)] + [replay])
    wire.recv(count=8, keep=lambda f: IP in Ether(f))
    state = decode_state(a.ctl.state_get())
    sas = {r["dir"]: r for r in state.records}
    assert sas["out"]["seq"] == 7 and sas["in"]["seq"] == 1
    assert sas["in"]["seen"] == [1]

    b = ns.start_nf("secgw", tmp_path, config=CONFIG, tag="b")
    b.ctl.state_put(a.ctl.state_get(), replace=True)
    a.stop()
    ns.procs.remove(a)
    wire.drain()
    got = exchange(wire, b, [bytes(TO_SERVER / cleartext(7)), replay],
                   keep=lambda f: IP in Ether(f))
    esp = [Ether(f)[ESP] for f in got if ESP in Ether(f)]
    assert [e.seq for e in esp] == [8]            # no sequence number reused
    assert bytes(peer_out_sa().decrypt(Ether(got[0])[IP])) \
        == bytes(cleartext(7))
    assert b.ctl.stats()["counters"]["replayed"] == 1
    assert {s["dir"]: s["seq"] for s in b.ctl.command("sas")} \
        == {"out": 8, "in": 1}
