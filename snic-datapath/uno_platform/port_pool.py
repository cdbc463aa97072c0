"""NF ports made before the daemon runs, handed to NFs in place of veth pairs: on a BlueField, scalable functions
(SFs), each a representor for the Arm's bridge and a netdev for the NF, made with the board's tools; on the remote
emulation, veth pairs standing for them.

A pair taken for the agent's port `name` is renamed: its representor to `name` (the bridge port OneSwitch maps) and
its netdev to the NF's end of that port, so the agent, OneSwitch and the NFs see the names they see with veth pairs.
Each renamed device keeps its own name in its interface alias (`uno-pool:<name>`), which a rename keeps: a
restarted daemon finds which pairs are in use from the kernel alone, and a pair given back gets its names again.
This module uses the standard library only (the sNIC daemon runs it with the sNIC's own Python).
"""
from __future__ import annotations

import dataclasses
import json
import pathlib

from uno_platform import system
from uno_platform.errors import PlatformError, SpecError
from uno_platform.spec import IFNAME_MAX
from uno_platform.switch_side import ip

ALIAS = "uno-pool:"
MAX_PAIRS = 4096


@dataclasses.dataclass(frozen=True)
class PoolPair:
    representor: str
    netdev: str


def load(path: pathlib.Path) -> list[PoolPair]:
    """The pairs a pool file lists: `[{"representor": NAME, "netdev": NAME}, ...]`, every name distinct."""
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SpecError(f"NF port pool {path}: {exc}") from None
    if not isinstance(entries, list) or not 0 < len(entries) <= MAX_PAIRS:
        raise SpecError(f"NF port pool {path}: a list of 1 to {MAX_PAIRS} pairs")
    pairs, seen = [], set()
    for e in entries:
        if not isinstance(e, dict) or set(e) != {"representor", "netdev"}:
            raise SpecError(f"NF port pool {path}: each pair is {{\"representor\": NAME, \"netdev\": NAME}}, not {e!r}")
        for name in e.values():
            if not isinstance(name, str) or not 0 < len(name) <= IFNAME_MAX or "/" in name or name in seen:
                raise SpecError(f"NF port pool {path}: {name!r} is not a distinct interface name")
            seen.add(name)
        pairs.append(PoolPair(e["representor"], e["netdev"]))
    return pairs


class PortPool:
    """`pairs` in namespace `netns` (None: this process's)."""

    def __init__(self, pairs: list[PoolPair], netns: str | None = None):
        self.pairs, self.netns = pairs, netns

    def take(self, name: str, nf_ifname: str) -> None:
        """Renames a free pair to `name` (representor) and `nf_ifname` (netdev), both up."""
        present = self._links()
        for pair in self.pairs:
            if pair.representor in present and pair.netdev in present:
                self._rename(pair.representor, name, pair.representor)
                self._rename(pair.netdev, nf_ifname, pair.netdev)
                return
        raise PlatformError(f"no free NF port: all {len(self.pairs)} of the pool are in use")

    def give_back(self, name: str, nf_ifname: str) -> bool:
        """Gives the pair renamed to `name` and `nf_ifname` its own names again; False if `name` is not the pool's."""
        links = self._links()
        own = self._own_name(links.get(name))
        if own is None:
            return False
        self._rename(name, own, own)
        netdev = self._own_name(links.get(nf_ifname))
        if netdev is not None:
            self._rename(nf_ifname, netdev, netdev)
        return True

    def _links(self) -> dict[str, str]:
        """The namespace's interfaces: name -> alias (one `ip` call)."""
        links = json.loads(system.run([*ip(self.netns), "-j", "link", "show"]))
        return {link["ifname"]: link.get("ifalias", "") for link in links}

    def _own_name(self, alias: str | None) -> str | None:
        """The pool name an alias records, if it is one of this pool's."""
        if not alias or not alias.startswith(ALIAS):
            return None
        own = alias.removeprefix(ALIAS)
        return own if any(own in (p.representor, p.netdev) for p in self.pairs) else None

    def _rename(self, current: str, new: str, own: str) -> None:
        link = [*ip(self.netns), "link", "set", "dev"]
        system.run([*link, current, "down"])
        system.run([*link, current, "name", new, "alias", ALIAS + own])
        system.run([*link, new, "up"])
