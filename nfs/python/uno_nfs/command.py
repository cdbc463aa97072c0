"""The command line that starts an NF: one place for the host's agent and the sNIC daemon."""
from __future__ import annotations

import pathlib


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


def control_socket(run_dir: pathlib.Path, instance_id: str) -> pathlib.Path:
    """Where NF `instance_id` started by `prepare_nf` answers."""
    return run_dir / f"{instance_id}.sock"


def prepare_nf(run_dir: pathlib.Path, instance_id: str, binary: str, *, iface: str, backend: str = "afpacket",
               hold_packets: int | None = None, config_text: str | None = None) -> list[str]:
    """`nf_command` for NF `instance_id` with its files in `run_dir`: `<id>.sock` (a stale one removed, so that
    its appearing means this NF bound it) and, with `config_text`, `<id>.conf` written with it."""
    control = control_socket(run_dir, instance_id)
    control.unlink(missing_ok=True)
    config = None
    if config_text is not None:
        config = run_dir / f"{instance_id}.conf"
        config.write_text(config_text)
    return nf_command(binary, iface=iface, control=str(control), backend=backend, hold_packets=hold_packets,
                      config=None if config is None else str(config))
