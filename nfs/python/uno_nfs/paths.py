"""Locating the NF executables built by `make -C nfs`."""
import os
import pathlib

NFS = ("noop", "l2fw", "l7fw", "secgw", "monitor", "nat")

_BUILD = pathlib.Path(__file__).resolve().parents[2] / "build" / "bin"


def nf_binary(name: str) -> pathlib.Path:
    """Path of NF (or tool) `name`: $UNO_NFS_BIN/<name> if that variable is
    set, else nfs/build/bin/<name> of this checkout."""
    base = pathlib.Path(os.environ.get("UNO_NFS_BIN", _BUILD))
    path = base / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run 'make -C nfs'")
    return path
