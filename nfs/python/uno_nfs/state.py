"""Decoder of the state blobs NFs export (format version 1).

    state = decode_state(ctl.state_get())
    state.nf                      # "monitor"
    state.flows[0].key            # FlowKey(proto=17, src="10.0.0.1", ...)
    state.flows[0].packets
    state.flows[0].nf             # the NF's per-flow data, decoded
    state.records                 # the NF's global records (assets, SAs)
    state.comparable()            # without the times, for equality tests

The layout is documented in nfs/README.md and lib/state.h.
"""
from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, field

FORMAT_VERSION = 1
REC_FLOW = 1
REC_NF = 0x100
KINDS = {0: "noop", 1: "l2fw", 2: "l7fw", 3: "secgw", 4: "monitor", 5: "nat"}

_HDR = struct.Struct("!4sHHHHI")
_REC = struct.Struct("!HHI")
_FLOW = struct.Struct("!BBHHH16s16sQQQQ")


class StateError(ValueError):
    """The blob is not a valid state blob."""


@dataclass(frozen=True, order=True)
class FlowKey:
    proto: int
    src: str
    sport: int
    dst: str
    dport: int


@dataclass
class Flow:
    key: FlowKey
    packets: int
    bytes: int
    age_us: int
    idle_us: int
    nf: dict = field(default_factory=dict)


@dataclass
class State:
    format_version: int
    kind: int
    nf: str
    nf_version: int
    flows: list[Flow]
    records: list[dict]

    def flow(self, key: FlowKey) -> Flow | None:
        return next((f for f in self.flows if f.key == key), None)

    def comparable(self) -> dict:
        """Everything but times, in a stable order: two NFs whose state is
        the same give equal values."""
        def strip(record: dict) -> dict:
            return {k: v for k, v in record.items()
                    if k not in ("age_us", "idle_us")}
        return {
            "nf": self.nf,
            "nf_version": self.nf_version,
            "flows": sorted((f.key, f.packets, f.bytes, sorted(f.nf.items()))
                            for f in self.flows),
            "records": sorted((strip(r) for r in self.records), key=repr),
        }


class _Reader:
    def __init__(self, data: bytes):
        self.data = memoryview(data)
        self.ofs = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.ofs + n > len(self.data):
            raise StateError("truncated record")
        out = bytes(self.data[self.ofs:self.ofs + n])
        self.ofs += n
        return out

    def unpack(self, fmt: str):
        s = struct.Struct(fmt)
        return s.unpack(self.take(s.size))

    def u8(self) -> int:
        return self.take(1)[0]

    def str8(self) -> str:
        return self.take(self.u8()).decode("utf-8", errors="replace")

    def left(self) -> int:
        return len(self.data) - self.ofs


def _addr(family: int, raw: bytes) -> str:
    if family == 4:
        return str(ipaddress.IPv4Address(raw[:4]))
    return str(ipaddress.IPv6Address(raw))


# Per-NF flow data and global records (version 1 layouts).

def _l2fw_flow(r: _Reader) -> dict:
    action, _, rule = r.unpack("!BBH")
    return {"action": {1: "allow", 2: "deny"}.get(action, action),
            "rule": None if rule == 0xFFFF else rule}


def _l7fw_flow(r: _Reader) -> dict:
    status, blocked, inspected, _ = r.unpack("!BBBB")
    return {"status": {0: "detecting", 1: "detected", 2: "undetected"}
            .get(status, status),
            "blocked": bool(blocked), "inspected": inspected,
            "master": r.str8(), "app": r.str8(), "host": r.str8()}


def _monitor_flow(r: _Reader) -> dict:
    flags, inspected, _ = r.unpack("!BBH")
    return {"tcp_flags": flags, "inspected": inspected}


def _nat_flow(r: _Reader) -> dict:
    ext, port, _ = r.unpack("!4sHH")
    return {"external": _addr(4, ext), "ext_port": port}


def _no_flow_data(r: _Reader) -> dict:
    return {}


def _secgw_sa(r: _Reader) -> dict:
    direction, spi, packets, nbytes, seq, size = r.unpack("!B3xIQQII")
    bits = r.take(size // 8)
    seen = [seq - i for i in range(min(size, seq)) if bits[i // 8] >> (i % 8) & 1]
    return {"type": "sa", "dir": "in" if direction else "out", "spi": spi,
            "packets": packets, "bytes": nbytes, "seq": seq,
            "window": size, "seen": seen}


def _monitor_asset(r: _Reader) -> dict:
    (family, addr, mac, ttl, n_services, window, _, packets, nbytes,
     age, idle) = r.unpack("!B3x16s6sBBHHQQQQ")
    asset = {"type": "asset", "ip": _addr(family, addr),
             "mac": ":".join(f"{b:02x}" for b in mac), "ttl": ttl,
             "syn_window": window, "packets": packets, "bytes": nbytes,
             "age_us": age, "idle_us": idle, "os": r.str8(),
             "fingerprint": r.str8(), "services": []}
    for _ in range(n_services):
        proto, role, port = r.unpack("!BBH")
        asset["services"].append({
            "proto": proto, "port": port,
            "role": {1: "server", 2: "client"}.get(role, role),
            "app": r.str8()})
    return asset


_FLOW_DATA = {"noop": _no_flow_data, "l2fw": _l2fw_flow, "l7fw": _l7fw_flow,
              "secgw": _no_flow_data, "monitor": _monitor_flow,
              "nat": _nat_flow}
_RECORDS = {("secgw", 0x100): _secgw_sa, ("monitor", 0x100): _monitor_asset}


def decode_state(blob: bytes) -> State:
    """Decodes a state blob; raises StateError if it is malformed."""
    if len(blob) < _HDR.size:
        raise StateError("shorter than the header")
    magic, version, kind, nf_version, reserved, count = _HDR.unpack_from(blob)
    if magic != b"UNOS":
        raise StateError("bad magic")
    if version != FORMAT_VERSION:
        raise StateError(f"format version {version}, expected {FORMAT_VERSION}")
    nf = KINDS.get(kind)
    if nf is None or reserved:
        raise StateError(f"unknown NF kind {kind}")
    r = _Reader(blob)
    r.take(_HDR.size)
    flows, records = [], []
    for _ in range(count):
        rtype, _, length = r.unpack(_REC.format)
        rec = _Reader(r.take(length))
        if rtype == REC_FLOW:
            (family, proto, sport, dport, _, src, dst, packets, nbytes,
             age, idle) = rec.unpack(_FLOW.format)
            key = FlowKey(proto, _addr(family, src), sport, _addr(family, dst),
                          dport)
            flows.append(Flow(key, packets, nbytes, age, idle,
                              _FLOW_DATA[nf](rec)))
        elif (nf, rtype) in _RECORDS:
            records.append(_RECORDS[nf, rtype](rec))
        else:
            raise StateError(f"unknown record type {rtype:#x} for {nf}")
        if rec.left():
            raise StateError(f"{rec.left()} trailing bytes in a record")
    if r.left():
        raise StateError(f"{r.left()} bytes after the last record")
    return State(version, kind, nf, nf_version, flows, records)
