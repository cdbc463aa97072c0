"""Locating the NF executables built by `make -C nfs`."""
import os
import pathlib

NFS = ("noop", "l2fw", "l7fw", "secgw", "monitor", "nat")

_BUILD = pathlib.Path(__file__).resolve().parents[2] / "build" / "bin"


def nf_bin_dir() -> pathlib.Path:
    """Where the NF executables are: $UNO_NFS_BIN if that variable is set, else
    nfs/build/bin of this checkout."""
    return pathlib.Path(os.environ.get("UNO_NFS_BIN", _BUILD))


def nf_binary(name: str) -> pathlib.Path:
    """Path of NF (or tool) `name` in `nf_bin_dir()`."""
    path = nf_bin_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: run 'make -C nfs'")
    return path
