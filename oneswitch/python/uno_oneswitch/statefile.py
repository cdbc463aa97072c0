"""OneSwitch's state file (oneswitch/README.md, "Persistence"): its records, read and written.

A record is a header line `ONESWITCH 2 <length> <crc32>` (CRC-32 of the body, 8 hex digits), the body (JSON) and a
newline. The first record is a snapshot, the others change records. Used by tests (to look into a state file and to
damage one on purpose) and, as `python -m uno_oneswitch.statefile FILE`, to summarise a file.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
import zlib

HEADER = re.compile(rb"ONESWITCH 2 (\d{1,10}) ([0-9a-f]{8})\n")


def frame(body: dict | bytes) -> bytes:
    """The bytes of a record holding `body` (a dict is encoded as compact JSON), with its checksum."""
    data = body if isinstance(body, bytes) else json.dumps(body, separators=(",", ":")).encode()
    return b"ONESWITCH 2 %d %08x\n" % (len(data), zlib.crc32(data)) + data + b"\n"


def records(data: bytes) -> list[dict]:
    """The records of a whole file, in order; ValueError at the first that is not whole and valid."""
    out, pos = [], 0
    while pos < len(data):
        m = HEADER.match(data, pos)
        if not m:
            raise ValueError(f"no record header at byte {pos}")
        start, length = m.end(), int(m[1])
        body = data[start:start + length]
        if len(body) < length or data[start + length:start + length + 1] != b"\n":
            raise ValueError(f"record at byte {pos} cut short")
        if zlib.crc32(body) != int(m[2], 16):
            raise ValueError(f"record at byte {pos}: checksum mismatch")
        out.append(json.loads(body))
        pos = start + length + 1
    return out


def read(path: str | pathlib.Path) -> list[dict]:
    return records(pathlib.Path(path).read_bytes())


def write(path: str | pathlib.Path, bodies: list[dict | bytes]) -> None:
    pathlib.Path(path).write_bytes(b"".join(frame(b) for b in bodies))


def rule_ids(bodies: list[dict]) -> set[int]:
    """The ids of the rules the records hold: the snapshot's, then each change record applied."""
    ids = {r["id"] for r in bodies[0]["rules"]}
    for change in bodies[1:]:
        ids -= set(change["deleted_rules"])
        ids |= {r["id"] for r in change["rules"]}
    return ids


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m uno_oneswitch.statefile",
                                     description="Summarise a OneSwitch state file: its records and what they hold.")
    parser.add_argument("file", help="the state file (--state-file of OneSwitch)")
    args = parser.parse_args(argv)
    try:
        bodies = read(args.file)
    except (OSError, ValueError) as err:
        print(f"statefile: {args.file}: {err}", file=sys.stderr)
        return 2
    if not bodies:
        print(f"statefile: {args.file}: empty", file=sys.stderr)
        return 2
    snap = bodies[0]
    print(json.dumps({"records": len(bodies), "snapshot_seq": snap["seq"], "last_seq": bodies[-1]["seq"],
                      "rules": len(rule_ids(bodies)), "ports": len(snap["port_map"]),
                      "rules_with_counters": sum(1 for r in snap["rules"] if "counters" in r)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
