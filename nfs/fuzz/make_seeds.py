#!/usr/bin/env python3
"""Writes the seed inputs of the fuzz targets into fuzz/seeds/.

Run as root from the repository's virtualenv after `make -C nfs`:
    .venv/bin/python nfs/fuzz/make_seeds.py
Packet seeds are scapy-crafted; state seeds are what the NFs export after
receiving the packet seeds (through a veth pair in a private netns).
"""
import pathlib
import struct
import sys

from scapy.layers.inet import IP, UDP, fragment
from scapy.layers.inet6 import IPv6
from scapy.layers.ipsec import ESP, SecurityAssociation
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from nfenv import Netns  # noqa: E402
from nftraffic import TO_SERVER, dns_exchange, http_session, ping, tcp_session, tls_session, udp  # noqa: E402

SEEDS = HERE / "seeds"
NFS = ["l2fw", "l7fw", "secgw", "monitor", "nat"]
KEY = bytes.fromhex("000102030405060708090a0b0c0d0e0fa0a1a2a3")


def fuzz_configs() -> dict:
    """The configurations of fuzz_common.c, read back from it."""
    text = (HERE / "fuzz_common.c").read_text()
    configs = {}
    for nf in NFS:
        start = text.index(f'{{ "{nf}",')
        chunk = text[start:text.index("},", start)]
        parts = chunk.split('"')[3::2]
        configs[nf] = "".join(parts).encode().decode("unicode_escape")
    return configs


def packets(frames) -> bytes:
    return b"".join(struct.pack("!H", len(f)) + bytes(f) for f in frames)


def esp_frames() -> list:
    sa = SecurityAssociation(ESP, spi=0x2000, crypt_algo="AES-GCM",
                             crypt_key=KEY,
                             tunnel_header=IP(src="192.0.2.2", dst="192.0.2.1"))
    return [bytes(TO_SERVER / sa.encrypt(IP(src="10.9.0.1", dst="10.0.0.1")
                                         / UDP(sport=53, dport=4000 + i)
                                         / Raw(b"answer")))
            for i in range(3)]


def packet_seeds() -> dict:
    nat_out = udp("10.0.0.5", "198.51.100.7", 5353, 53)
    return {
        "http": http_session(),
        "tls": tls_session("blocked.example"),
        "dns": dns_exchange("www.example.org"),
        "ssh": tcp_session("10.0.0.1", "10.0.1.22", 50000, 22, b"SSH-2.0-c\r\n",
                           b"SSH-2.0-OpenSSH_9.2\r\n",
                           syn_options=[("MSS", 1460), ("SAckOK", b""),
                                        ("Timestamp", (1, 0)), ("NOP", None),
                                        ("WScale", 7)]),
        "nat": [nat_out, udp("198.51.100.7", "203.0.113.1", 53, 1024),
                ping("10.0.0.7", "198.51.100.7")],
        "ipv6": [bytes(TO_SERVER / IPv6(src="2001:db8::1", dst="2001:db8::2")
                       / UDP(sport=1, dport=2) / Raw(b"v6"))],
        "vlan": [bytes(Ether() / Dot1Q(vlan=5) / Dot1Q(vlan=6)
                       / IP(src="10.0.0.1", dst="10.0.0.2") / UDP())],
        "esp": esp_frames(),
        "fragments": [bytes(TO_SERVER / f) for f in
                      fragment(IP(src="10.0.0.1", dst="10.0.0.2") / UDP()
                               / Raw(b"x" * 100), fragsize=48)],
    }


def write(directory: str, name: str, data: bytes) -> None:
    path = SEEDS / directory
    path.mkdir(parents=True, exist_ok=True)
    (path / name).write_bytes(data)


def main() -> None:
    configs = fuzz_configs()
    seeds = packet_seeds()
    for name, frames in seeds.items():
        write("packet", name, packets(frames))

    inner = bytes(IP(src="10.9.0.1", dst="10.0.0.1") / UDP(sport=53, dport=9)
                  / Raw(b"abc"))
    pad = (4 - (len(inner) + 2) % 4) % 4
    write("esp", "udp", inner + bytes(range(1, pad + 1)) + bytes([pad, 4]))
    write("esp", "dummy", b"\x00\x00\x00\x3b")

    requests = [b"ping", b"stats", b"version", b"flows match proto udp",
                b"state get", b"state get flow udp 10.0.0.1 1024 10.0.0.2 53",
                b"buffer start", b"buffer take 100", b"buffer release",
                b"assets", b"state delete match src 10.0.0.0/8"]
    write("ctl", "commands", packets(requests))
    write("ctl", "inject", packets([b"inject\n" + struct.pack("!B3xI", 0, 14)
                                    + bytes(14)]))

    for nf in NFS:
        write(f"{nf}_config", "fuzz", configs[nf].encode())

    tmp = pathlib.Path("/tmp") / "unonf-seeds"
    tmp.mkdir(exist_ok=True)
    with Netns() as ns:
        wire = ns.wire()
        for nf in NFS:
            proc = ns.start_nf(nf, tmp, config=configs[nf], tag="seed")
            for frames in seeds.values():
                wire.send(frames)
            wire.recv(timeout=1.0, quiet=0.3)
            blob = proc.ctl.state_get()
            write(f"{nf}_state", "merge", b"\0" + blob)
            write(f"{nf}_state", "replace", b"\1" + blob)
            proc.stop()
            ns.procs.remove(proc)
    print(f"seeds written under {SEEDS}")


if __name__ == "__main__":
    main()
