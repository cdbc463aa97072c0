"""Keys and certificates for an SSL southbound, made with Open vSwitch's own tool (ovs-pki).

ovs-pki keeps two CAs: `switchca` signs the switches' certificates (OneSwitch trusts it) and
`controllerca` signs the controller's (the switches trust it). Every switch gets a certificate of its
own, named in the platform description, so that OneSwitch can tell a switch from a process that only
claims its datapath id. Private keys are readable by root only.
"""
from __future__ import annotations

import dataclasses
import pathlib
import subprocess

from uno_platform.errors import PlatformError, SpecError


@dataclasses.dataclass(frozen=True)
class Pki:
    dir: pathlib.Path

    def private_key(self, name: str) -> pathlib.Path:
        return self.dir / f"{name}-privkey.pem"

    def certificate(self, name: str) -> pathlib.Path:
        return self.dir / f"{name}-cert.pem"

    @property
    def switch_ca(self) -> pathlib.Path:
        return self.dir / "pki" / "switchca" / "cacert.pem"

    @property
    def controller_ca(self) -> pathlib.Path:
        return self.dir / "pki" / "controllerca" / "cacert.pem"


def create(directory: pathlib.Path, switches: list[str], controllers: tuple[str, ...] = ("oneswitch",)) -> Pki:
    """A new PKI in `directory`: both CAs, a certificate per switch and one per controller (the host's
    parts that switches and sNICs trust: OneSwitch, and with a remote sNIC the agent)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    _ovs_pki(directory, "init")
    for name, kind in [*((sw, "switch") for sw in switches), *((c, "controller") for c in controllers)]:
        _ovs_pki(directory, "req+sign", name, kind)  # relative: the certificate's CN is the name
        (directory / f"{name}-req.pem").unlink()
    return Pki(directory)


def existing(directory: pathlib.Path, names: list[str]) -> Pki:
    """The PKI an operator made in `directory` (`unoctl pki create`), which must hold a key and a certificate for
    each of `names`; SpecError naming what is missing."""
    made = Pki(directory)
    for path in [made.switch_ca, made.controller_ca,
                 *(f(name) for name in names for f in (made.private_key, made.certificate))]:
        if not path.is_file():
            raise SpecError(f"--pki-dir {directory}: {path.name} is missing (make it with `unoctl pki create`)")
    return made


def placement(made: Pki, snics: list[str], controllers: tuple[str, ...],
              etc: str = "/etc/uno") -> dict[str, dict[str, str]]:
    """Where each file of `made` goes, by machine ("host", and each sNIC), as {source: destination}. The host's
    bridge and the sNICs trust the controller CA (`controllers`: OneSwitch, the agent); the controllers trust the
    switch CA (the bridges, each sNIC's ovsdb-server and daemon). The host also gets each sNIC's certificate (not
    its key): OneSwitch pins it, for that sNIC's bridge and daemon."""
    def files(name: str, ca: pathlib.Path, ca_name: str) -> dict[str, str]:
        return {str(made.private_key(name)): f"{etc}/{name}-privkey.pem",
                str(made.certificate(name)): f"{etc}/{name}-cert.pem", str(ca): f"{etc}/{ca_name}"}

    host = {}
    for name in ("host", *controllers):
        ca, ca_name = ((made.controller_ca, "controllerca.pem") if name == "host" else (made.switch_ca, "switchca.pem"))
        host.update(files(name, ca, ca_name))
    host.update({str(made.certificate(sw)): f"{etc}/{sw}-cert.pem" for sw in snics})
    return {"host": host, **{sw: files(sw, made.controller_ca, "controllerca.pem") for sw in snics}}


def _ovs_pki(directory: pathlib.Path, *args: str) -> None:
    log = directory / "ovs-pki.log"
    proc = subprocess.run(["ovs-pki", "--dir=pki", f"--log={log}", "--force", *args], cwd=directory,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        detail = (proc.stderr.strip() or log.read_text().strip() or f"exit status {proc.returncode}").splitlines()[-1]
        raise PlatformError(f"ovs-pki {' '.join(args)} in {directory}: {detail}")
