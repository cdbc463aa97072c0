"""Random packets for the verifier, from the same value pools as the random rules."""
from __future__ import annotations

import random

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Dot1Q, Ether
from scapy.packet import Raw, raw

from uno_harness.verify.rules import IP6S, IPS, L4_PORTS, MACS, VIDS


def generate(rng: random.Random, ports: list[int], count: int) -> list[tuple[int, bytes]]:
    """`count` (virtual in_port, frame) pairs."""
    return [(rng.choice(ports), frame(rng)) for _ in range(count)]


def frame(rng: random.Random) -> bytes:
    eth = Ether(src=rng.choice(MACS[:-1]), dst=rng.choice(MACS))
    if rng.random() < 0.3:
        eth = eth / Dot1Q(vlan=rng.choice(VIDS + [99]), prio=rng.randint(0, 3))
    r = rng.random()
    if r < 0.55:
        l3 = IP(src=rng.choice(IPS + ["172.16.0.9"]), dst=rng.choice(IPS + ["172.16.0.9"]),
                tos=rng.choice([0, 10, 46]) << 2, ttl=64)
        proto = rng.random()
        if proto < 0.4:
            l4 = TCP(sport=rng.choice(L4_PORTS + [40000]), dport=rng.choice(L4_PORTS + [40001]))
        elif proto < 0.8:
            l4 = UDP(sport=rng.choice(L4_PORTS + [40000]), dport=rng.choice(L4_PORTS + [40001]))
        else:
            l4 = ICMP(type=8)
        pkt = eth / l3 / l4 / Raw(b"uno")
    elif r < 0.7:
        l4 = TCP(dport=rng.choice(L4_PORTS)) if rng.random() < 0.5 else UDP(dport=rng.choice(L4_PORTS))
        pkt = eth / IPv6(src=rng.choice(IP6S), dst=rng.choice(IP6S)) / l4 / Raw(b"uno")
    elif r < 0.85:
        pkt = eth / ARP(op=rng.choice([1, 2]), psrc=rng.choice(IPS), pdst=rng.choice(IPS), hwsrc=eth.src)
    else:
        eth.lastlayer().type = 0x88B6
        pkt = eth / Raw(b"experimental payload")
    return raw(pkt)
