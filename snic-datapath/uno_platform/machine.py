"""The remote profile's sNIC machine, emulated on this one: network, mount and PID namespaces of its own.

Its processes see their own disk at /srv (a directory of the testbed's state, bind-mounted), empty /run,
/tmp and /var/tmp, and neither the host's state directory nor the project's checkout: what runs there has
only what was installed on its disk, as on a real DPU. They see only each other in /proc, numbered as the
machine numbers them (without a PID namespace of its own, /proc/<a host pid>/root would open the host's files
to them). Its init, the holder (`sleep`), keeps the namespaces; the builder runs commands there with nsenter,
as an operator would over the DPU's console. Powering it off is stopping the `unshare` above its init (which
then kills the init, and with it every process of the machine) and deleting its network namespace.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import shutil
import subprocess

import uno_nfs
import uno_platform
import uno_snicd
from uno_nfs.paths import nf_bin_dir
from uno_platform import system
from uno_platform.cgroups import SideCgroup, preexec_join
from uno_platform.errors import PlatformError

DISK = "/srv"                               # where the machine's own disk is mounted
PYTHON = "/usr/bin/python3"                 # the machine's own Python (not the host's venv)
LIB = f"{DISK}/lib/python"                  # the project's packages the sNIC daemon needs
BIN = f"{DISK}/bin"                         # NF binaries
ETC = f"{DISK}/etc/uno"                     # keys and certificates
VAR = f"{DISK}/var"
BOOT_TIMEOUT = 10.0

# Mounts made in the new mount namespace, in order; paths that no longer exist by then (under /run) are skipped.
# The sysfs is made again for the machine's network namespace (its /sys/class/net), and the cgroup tree is
# carried over into it: the sNIC daemon reads the sNIC's CPU use there.
_BOOT = f"""set -e
mount --bind "$1" {DISK}
shift
mount --rbind /sys/fs/cgroup /mnt
mount -t sysfs uno-snic-sys /sys
mount --move /mnt /sys/fs/cgroup
mount -t tmpfs -o mode=0755 uno-snic-run /run
mount -t tmpfs -o mode=1777 uno-snic-tmp /tmp
mount -t tmpfs -o mode=1777 uno-snic-tmp /var/tmp
for hidden in "$@"; do
    if [ -d "$hidden" ]; then mount -t tmpfs -o ro,mode=0755 uno-snic-hidden "$hidden"; fi
done
exec sleep infinity
"""


def install(disk: pathlib.Path) -> None:
    """Put on the machine's disk what an operator installs on a DPU: the NF binaries, and the packages the sNIC
    daemon imports (standard library only otherwise)."""
    (disk / "bin").mkdir(parents=True, exist_ok=True)
    for binary in nf_bin_dir().iterdir():
        if binary.is_file():
            shutil.copy2(binary, disk / "bin" / binary.name)
    for package in (uno_platform, uno_snicd, uno_nfs):
        source = pathlib.Path(package.__file__).parent
        shutil.copytree(source, disk / "lib/python" / source.name, ignore=shutil.ignore_patterns("__pycache__"))
    for sub in ("etc/uno", "var/log", "var/lib"):
        (disk / sub).mkdir(parents=True, exist_ok=True, mode=0o700)


@dataclasses.dataclass(frozen=True)
class Booted:
    power: int     # the `unshare` above the machine's init: stopping it powers the machine off
    holder: int    # the machine's init (its pid here): what nsenter enters


def boot(netns: str, disk: pathlib.Path, hidden: list[str], cgroup: SideCgroup) -> Booted:
    """Start the machine's init in `netns` and `cgroup`, once its mounts are made."""
    proc = subprocess.Popen(["nsenter", f"--net=/run/netns/{netns}", "unshare", "--mount", "--propagation", "private",
                             "--pid", "--kill-child", "--mount-proc", "sh", "-c", _BOOT, "boot", str(disk), *hidden],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=preexec_join(cgroup), start_new_session=True)
    holder: list[int] = []

    def booted() -> bool:
        if proc.poll() is not None:
            reason = (proc.stderr.read().decode(errors="replace").strip().splitlines() or ["exited"])[-1]
            raise PlatformError(f"sNIC machine in {netns} did not boot: {reason}")
        try:   # nsenter execs unshare, which forks the init
            children = pathlib.Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
            if children and pathlib.Path(f"/proc/{children[0]}/comm").read_text().strip() == "sleep":
                holder.append(int(children[0]))
                return True
        except OSError:
            pass
        return False

    try:
        system.wait_for(booted, BOOT_TIMEOUT, f"the sNIC machine in {netns} to boot")
    except PlatformError:
        proc.kill()      # not in the ledger yet; its init goes with it (--kill-child)
        proc.wait()
        raise
    finally:
        proc.stderr.close()
    return Booted(power=proc.pid, holder=holder[0])


def host_pid(holder: int, pid: int) -> int:
    """This machine's pid of the sNIC machine's process `pid` (as the machine numbers it)."""
    namespace = os.readlink(f"/proc/{holder}/ns/pid")
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(entry / "ns/pid") != namespace:
                continue
            status = (entry / "status").read_text().splitlines()
        except OSError:
            continue   # gone meanwhile
        numbers = next((line.split()[1:] for line in status if line.startswith("NSpid:")), [])
        if numbers and int(numbers[-1]) == pid:
            return int(entry.name)
    raise PlatformError(f"the sNIC machine (init {holder}) has no process {pid}")


def enter(holder: int) -> list[str]:
    """The start of a command that runs on the machine (its network, mount and PID namespaces; nsenter forks
    into the last)."""
    return ["nsenter", "-t", str(holder), "-m", "-n", "-p", "--"]
