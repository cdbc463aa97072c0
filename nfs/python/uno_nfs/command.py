"""The command line that starts an NF: one place for the host's agent and the sNIC daemon."""
from __future__ import annotations


def nf_command(binary: str, *, iface: str, control: str, backend: str = "afpacket",
               hold_packets: int | None = None, config: str | None = None) -> list[str]:
    """argv of NF `binary` on interface `iface` (or vhost-user socket, with `backend` dpdk), answering on the
    control socket `control`; with `hold_packets`, it holds what it receives (a migration target)."""
    argv = [binary, "--backend", backend, "--iface", iface, "--control", control]
    if hold_packets is not None:
        argv += ["--buffering", "--hold-packets", str(hold_packets)]
    if config is not None:
        argv += ["--config", config]
    return argv
