"""What Open vSwitch's datapath does to a packet, from the `Datapath actions:` line of ofproto/trace.

The verifier compares what happens to a packet on the reference bridge with what happens to it
across the host and sNIC bridges. Both sides are reduced to the same thing: the list of
(datapath port, packet bytes) it is sent to and the packets sent to the controller, obtained by
applying the datapath actions to the packet bytes here. Only the actions the verifier's rules can
produce are known; anything else raises `Unsupported` (the packet is then reported, not guessed).

Checksums are not updated: both sides go through the same code, and OVS does not check them.
"""
from __future__ import annotations

import dataclasses
import ipaddress
import re
import struct

VLAN_TPIDS = (0x8100, 0x88a8)


class Unsupported(Exception):
    """A datapath action the interpreter does not model."""


@dataclasses.dataclass
class Effects:
    outputs: list[tuple[int, bytes]] = dataclasses.field(default_factory=list)
    to_controller: list[bytes] = dataclasses.field(default_factory=list)
    recirculated: bytes | None = None  # the packet as it recirculates (ofproto/trace does not follow it)


@dataclasses.dataclass
class _Packet:
    data: bytearray
    l3_type: int | None = None  # the Ethertype of a packet without its Ethernet header (pop_eth, add_mpls)


def datapath_actions(trace: str) -> str:
    """The text after `Datapath actions:` in an ofproto/trace result."""
    for line in trace.splitlines():
        if line.startswith("Datapath actions:"):
            return line[len("Datapath actions:"):].strip()
    raise Unsupported(f"no datapath actions in trace:\n{trace}")


def split_top(text: str) -> list[str]:
    """Splits `a,b(c,d),e` at the commas outside parentheses."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    if text[start:]:
        out.append(text[start:])
    return [x.strip() for x in out if x.strip()]


def execute(actions: str, packet: bytes) -> Effects:
    """Applies datapath actions to `packet`; returns where copies went and what reached the controller."""
    effects = Effects()
    if actions == "drop":
        return effects
    _run(split_top(actions), _Packet(bytearray(packet)), effects)
    return effects


def final_tun_id(trace: str) -> int:
    """The tunnel id in the `Final flow:` of an ofproto/trace result (0 if none)."""
    for line in trace.splitlines():
        if line.startswith("Final flow:"):
            m = re.search(r"\btun_id=(0x[0-9a-f]+|\d+)", line)
            return int(m[1], 0) if m else 0
    raise Unsupported(f"no final flow in trace:\n{trace}")


def _run(actions: list[str], p: _Packet, effects: Effects) -> None:
    pkt = p.data
    for a in actions:
        if a.isdigit() or a.startswith("recirc("):
            if p.l3_type is not None:
                raise Unsupported(f"{a} of a packet without an Ethernet header")
            if a.isdigit():
                effects.outputs.append((int(a), bytes(pkt)))
            else:
                effects.recirculated = bytes(pkt)
        elif a.startswith("add_mpls("):
            _add_mpls(p, _args(a))
        elif a.startswith("push_eth("):
            _push_eth(p, _args(a))
        elif a == "pop_eth":
            _pop_eth(p)
        elif p.l3_type is not None and a.startswith("pop_mpls("):
            _decap_mpls(p, _args(a))
        elif p.l3_type is not None and not a.startswith(("set(skb_", "clone(")):
            raise Unsupported(f"{a} of a packet without an Ethernet header")
        elif a == "pop_vlan":
            _pop_vlan(pkt)
        elif a.startswith("push_vlan("):
            _push_vlan(pkt, _args(a))
        elif a.startswith("push_mpls("):
            _push_mpls(pkt, _args(a))
        elif a.startswith("pop_mpls("):
            _pop_mpls(pkt, _args(a))
        elif a.startswith("set("):
            _set(pkt, a[len("set("):-1])
        elif a.startswith("meter("):
            pass  # ofproto/trace takes no tokens: every traced packet passes a meter
        elif a.startswith("userspace(") and "controller(" in a:
            effects.to_controller.append(bytes(pkt))
        elif a.startswith("clone("):
            _run(split_top(a[len("clone("):-1]), _Packet(bytearray(pkt), p.l3_type), effects)
        else:
            raise Unsupported(f"datapath action {a!r}")


def _args(call: str) -> dict[str, str]:
    inner = call[call.index("(") + 1:-1]
    return dict(kv.split("=", 1) for kv in split_top(inner) if "=" in kv)


# -- Ethernet and VLAN ------------------------------------------------------------------------

def l3_offset(pkt: bytes) -> tuple[int, int]:
    """(offset of the L3 header, ethertype), skipping VLAN tags."""
    off = 12
    etype = struct.unpack_from("!H", pkt, off)[0]
    while etype in VLAN_TPIDS and len(pkt) >= off + 6:
        off += 4
        etype = struct.unpack_from("!H", pkt, off)[0]
    return off + 2, etype


def vlan_tags(pkt: bytes) -> list[tuple[int, int]]:
    """The VLAN tags (tpid, vid), outermost first."""
    tags, off = [], 12
    while len(pkt) >= off + 4:
        tpid, tci = struct.unpack_from("!HH", pkt, off)
        if tpid not in VLAN_TPIDS:
            break
        tags.append((tpid, tci & 0xfff))
        off += 4
    return tags


def _push_vlan(pkt: bytearray, args: dict[str, str]) -> None:
    tpid = int(args.get("tpid", "0x8100"), 0)
    tci = (int(args.get("pcp", "0")) << 13) | int(args.get("vid", "0"))
    if "cfi" in args and args["cfi"] == "0":
        raise Unsupported("push_vlan without CFI")
    pkt[12:12] = struct.pack("!HH", tpid, tci)


def _pop_vlan(pkt: bytearray) -> None:
    if struct.unpack_from("!H", pkt, 12)[0] in VLAN_TPIDS:
        del pkt[12:16]


# -- MPLS (OneSwitch's flow-id labels) ----------------------------------------------------------

PARSED_VLANS = 2  # the platform's vlan-limit: MPLS goes after the VLAN headers Open vSwitch parsed


def _mpls_offset(pkt: bytes) -> int:
    """The offset of the Ethertype that an MPLS label stack follows (after the parsed VLAN headers)."""
    off = 12
    for _ in range(PARSED_VLANS):
        if struct.unpack_from("!H", pkt, off)[0] not in VLAN_TPIDS:
            break
        off += 4
    return off


def _push_mpls(pkt: bytearray, args: dict[str, str]) -> None:
    off = _mpls_offset(pkt)
    lse = (int(args["label"]) << 12) | (int(args["tc"]) << 9) | (int(args["bos"]) << 8) | int(args["ttl"])
    pkt[off:off + 2] = struct.pack("!HI", int(args["eth_type"], 0), lse)


def _pop_mpls(pkt: bytearray, args: dict[str, str]) -> None:
    off = _mpls_offset(pkt)
    if struct.unpack_from("!H", pkt, off)[0] not in (0x8847, 0x8848):
        raise Unsupported("pop_mpls on a frame without MPLS")
    pkt[off:off + 6] = struct.pack("!H", int(args["eth_type"], 0))


# -- encap(mpls)/encap(ethernet) and decap (frames of other Ethertypes, carried whole) -----------

def _add_mpls(p: _Packet, args: dict[str, str]) -> None:
    if p.l3_type is not None:
        raise Unsupported("add_mpls on a packet without an Ethernet header")
    lse = (int(args["label"]) << 12) | (int(args["tc"]) << 9) | (int(args["bos"]) << 8) | int(args["ttl"])
    p.data[0:0] = struct.pack("!I", lse)
    p.l3_type = int(args["eth_type"], 0)


def _push_eth(p: _Packet, args: dict[str, str]) -> None:
    if p.l3_type is None:
        raise Unsupported("push_eth on an Ethernet frame")
    p.data[0:0] = _mac(args["dst"]) + _mac(args["src"]) + struct.pack("!H", p.l3_type)
    p.l3_type = None


def _pop_eth(p: _Packet) -> None:
    if p.l3_type is not None or struct.unpack_from("!H", p.data, 12)[0] in VLAN_TPIDS:
        raise Unsupported("pop_eth of a packet without an untagged Ethernet header")
    p.l3_type = struct.unpack_from("!H", p.data, 12)[0]
    del p.data[0:14]


def _decap_mpls(p: _Packet, args: dict[str, str]) -> None:
    """pop_mpls of a bare MPLS packet whose payload is an Ethernet frame (Ethertype 0x6558)."""
    if p.l3_type not in (0x8847, 0x8848) or int(args["eth_type"], 0) != 0x6558:
        raise Unsupported(f"pop_mpls({args}) of a bare packet of type {p.l3_type}")
    del p.data[0:4]
    p.l3_type = None


# -- set(...) -----------------------------------------------------------------------------------

_SET = re.compile(r"^(\w+)\((.*)\)$")


def _set(pkt: bytearray, body: str) -> None:
    m = _SET.match(body)
    if not m:
        raise Unsupported(f"set({body})")
    header, fields = m[1], dict(kv.split("=", 1) for kv in split_top(m[2]))
    setter = _SETTERS.get(header)
    if setter is None:
        raise Unsupported(f"set({body})")
    setter(pkt, fields)


def _value_mask(text: str, parse) -> tuple[bytes, bytes | None]:
    if "/" in text:
        v, mk = text.split("/", 1)
        return parse(v), parse(mk)
    return parse(text), None


def _write(pkt: bytearray, off: int, value: bytes, mask: bytes | None) -> None:
    if mask is None:
        pkt[off:off + len(value)] = value
        return
    for i, (v, mk) in enumerate(zip(value, mask, strict=True)):
        pkt[off + i] = (pkt[off + i] & ~mk & 0xff) | (v & mk)


def _mac(text: str) -> bytes:
    return bytes(int(x, 16) for x in text.split(":"))


def _u8(text: str) -> bytes:
    return struct.pack("!B", int(text, 0))


def _u16(text: str) -> bytes:
    return struct.pack("!H", int(text, 0))


def _ip4(text: str) -> bytes:
    return ipaddress.IPv4Address(text).packed


def _ip6(text: str) -> bytes:
    return ipaddress.IPv6Address(text).packed


def _set_eth(pkt: bytearray, f: dict[str, str]) -> None:
    for name, off in (("dst", 0), ("src", 6)):
        if name in f:
            _write(pkt, off, *_value_mask(f[name], _mac))


def _set_ipv4(pkt: bytearray, f: dict[str, str]) -> None:
    l3, etype = l3_offset(pkt)
    if etype != 0x0800:
        raise Unsupported("set(ipv4) on a non-IPv4 packet")
    for name, rel, parse in (("src", 12, _ip4), ("dst", 16, _ip4), ("tos", 1, _u8), ("ttl", 8, _u8)):
        if name in f:
            _write(pkt, l3 + rel, *_value_mask(f[name], parse))
    if set(f) - {"src", "dst", "tos", "ttl"}:
        raise Unsupported(f"set(ipv4) of {sorted(f)}")


def _set_ipv6(pkt: bytearray, f: dict[str, str]) -> None:
    l3, etype = l3_offset(pkt)
    if etype != 0x86DD:
        raise Unsupported("set(ipv6) on a non-IPv6 packet")
    for name, rel, parse in (("src", 8, _ip6), ("dst", 24, _ip6), ("hlimit", 7, _u8)):
        if name in f:
            _write(pkt, l3 + rel, *_value_mask(f[name], parse))
    if "tclass" in f:
        v, mk = _value_mask(f["tclass"], _u8)
        word = struct.unpack_from("!I", pkt, l3)[0]
        tc = (word >> 20) & 0xff
        tc = (tc & ~(mk[0] if mk else 0xff)) | (v[0] & (mk[0] if mk else 0xff))
        struct.pack_into("!I", pkt, l3, (word & ~(0xff << 20)) | (tc << 20))
    if set(f) - {"src", "dst", "hlimit", "tclass"}:
        raise Unsupported(f"set(ipv6) of {sorted(f)}")


def _l4_offset(pkt: bytes) -> int:
    l3, etype = l3_offset(pkt)
    if etype == 0x0800:
        return l3 + (pkt[l3] & 0xF) * 4
    if etype == 0x86DD:
        return l3 + 40
    raise Unsupported("L4 set on a packet without IP")


def _set_ports(pkt: bytearray, f: dict[str, str]) -> None:
    l4 = _l4_offset(pkt)
    for name, rel in (("src", 0), ("dst", 2)):
        if name in f:
            _write(pkt, l4 + rel, *_value_mask(f[name], _u16))


def _set_icmp(pkt: bytearray, f: dict[str, str]) -> None:
    l4 = _l4_offset(pkt)
    for name, rel in (("type", 0), ("code", 1)):
        if name in f:
            _write(pkt, l4 + rel, *_value_mask(f[name], _u8))


def _set_arp(pkt: bytearray, f: dict[str, str]) -> None:
    l3, etype = l3_offset(pkt)
    if etype != 0x0806:
        raise Unsupported("set(arp) on a non-ARP packet")
    for name, rel, parse in (("op", 6, _u16), ("sha", 8, _mac), ("sip", 14, _ip4), ("tha", 18, _mac),
                             ("tip", 24, _ip4)):
        if name in f:
            _write(pkt, l3 + rel, *_value_mask(f[name], parse))


_SETTERS = {
    "eth": _set_eth, "ipv4": _set_ipv4, "ipv6": _set_ipv6, "tcp": _set_ports, "udp": _set_ports,
    "sctp": _set_ports, "icmp": _set_icmp, "icmpv6": _set_icmp, "arp": _set_arp,
    "skb_priority": lambda pkt, f: None, "skb_mark": lambda pkt, f: None,
}
