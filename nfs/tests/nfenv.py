"""Test environment for the NFs: a network namespace with a veth pair, raw
packet sockets on the test's end, and NF processes on the other end.

    with Netns() as ns:
        wire = ns.wire("peer0")             # the switch's side
        nf = ns.start_nf("monitor", tmp_path)   # on "nf0"
        wire.send([bytes(pkt), ...])
        frames = wire.recv(count=10)
"""
from __future__ import annotations

import ctypes
import itertools
import os
import pathlib
import select
import signal
import socket
import subprocess
import threading
import time

from uno_nfs import NfControl, nf_binary, wait_ready

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SO_RCVBUFFORCE = 33
CLONE_NEWNET = 0x40000000
_counter = itertools.count()
_libc = ctypes.CDLL(None, use_errno=True)


def run(*cmd: str) -> None:
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def _in_netns(name: str, func):
    """Runs func() on a thread that has entered netns `name` (setns applies
    to one thread); what it creates, such as sockets, stays in that netns."""
    result = {}

    def body():
        try:
            with open(f"/run/netns/{name}") as f:
                if _libc.setns(f.fileno(), CLONE_NEWNET):
                    raise OSError(ctypes.get_errno(), "setns")
            result["value"] = func()
        except BaseException as exc:  # handed to the caller's thread
            result["error"] = exc

    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


class Wire:
    """A raw packet socket on one interface: sends frames, receives the
    frames that arrive (not the ones it sent)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock

    def send(self, frames) -> None:
        for f in frames:
            self.sock.send(bytes(f))

    def recv(self, count: int | None = None, timeout: float = 5.0,
             keep=lambda frame: True, quiet: float | None = None) -> list[bytes]:
        """Frames that arrive and satisfy `keep`, until `count` of them, or
        `timeout` seconds, or (if given) `quiet` seconds without one."""
        frames = []
        deadline = time.monotonic() + timeout
        last = time.monotonic()
        while count is None or len(frames) < count:
            now = time.monotonic()
            wait = deadline - now
            if quiet is not None:
                wait = min(wait, last + quiet - now)
            if wait <= 0:
                break
            ready, _, _ = select.select([self.sock], [], [], wait)
            if not ready:
                continue
            data, addr = self.sock.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue
            if keep(data):
                frames.append(data)
                last = time.monotonic()
        return frames

    def drain(self) -> None:
        self.sock.setblocking(False)
        try:
            while True:
                self.sock.recv(65535)
        except BlockingIOError:
            pass
        finally:
            self.sock.setblocking(True)

    def close(self) -> None:
        self.sock.close()


class NfProcess:
    """An NF running in the netns, with its control connection."""

    def __init__(self, name: str, proc: subprocess.Popen, control: str,
                 log: pathlib.Path):
        self.name = name
        self.proc = proc
        self.control = control
        self.log = log
        self.ctl: NfControl = wait_ready(control, timeout=15)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> int:
        self.ctl.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


class Netns:
    """A network namespace with veth pairs; removed (with its processes) on
    exit."""

    def __init__(self):
        self.name = f"unonf{os.getpid()}x{next(_counter)}"
        self.procs: list[NfProcess] = []
        self.wires: list[Wire] = []

    def __enter__(self) -> Netns:
        run("ip", "netns", "add", self.name)
        self.exec("sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        self.exec("sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        self.add_veth("nf0", "peer0")
        return self

    def __exit__(self, *exc) -> None:
        for p in self.procs:
            p.stop()
        for w in self.wires:
            w.close()
        subprocess.run(["ip", "netns", "del", self.name], check=False)

    def exec(self, *cmd: str) -> None:
        run("ip", "netns", "exec", self.name, *cmd)

    def add_veth(self, a: str, b: str) -> None:
        run("ip", "-n", self.name, "link", "add", a, "type", "veth",
            "peer", "name", b)
        for dev in (a, b):
            run("ip", "-n", self.name, "link", "set", dev, "up")
            self.exec("ethtool", "-K", dev, "tx", "off")

    def wire(self, ifname: str = "peer0") -> Wire:
        def make():
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                              socket.htons(ETH_P_ALL))
            # Beyond net.core.rmem_max (we are root): bursts of thousands
            # of frames must not overflow before the test reads them.
            s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 << 20)
            s.bind((ifname, ETH_P_ALL))
            return s
        w = Wire(_in_netns(self.name, make))
        self.wires.append(w)
        return w

    def start_nf(self, name: str, tmp: pathlib.Path, *args: str,
                 iface: str = "nf0", config: str | None = None,
                 tag: str = "") -> NfProcess:
        control = str(tmp / f"{name}{tag}.sock")
        log = tmp / f"{name}{tag}.log"
        cmd = ["ip", "netns", "exec", self.name, str(nf_binary(name)),
               "--iface", iface, "--control", control]
        if config is not None:
            path = tmp / f"{name}{tag}.conf"
            path.write_text(config)
            cmd += ["--config", str(path)]
        cmd += list(args)
        with open(log, "w") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        try:
            nf = NfProcess(name, proc, control, log)
        except Exception as exc:
            proc.kill()
            proc.wait()
            raise RuntimeError(f"{name} did not start: {log.read_text()}") from exc
        self.procs.append(nf)
        return nf
