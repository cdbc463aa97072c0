"""Running OneSwitch for tests and benchmarks: the jar, an os-ken controller, REST and OpenFlow clients.

Every process started here is stopped by its own handle (`Proc.stop`), never by name, so parallel
test runs and other engineers' processes are left alone. Ports are chosen free at run time.
"""
from __future__ import annotations

import json
import pathlib
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

from os_ken.ofproto import ofproto_parser, ofproto_v1_3, ofproto_v1_3_parser

REPO = pathlib.Path(__file__).resolve().parents[2]
JAR = REPO / "oneswitch" / "target" / "oneswitch.jar"
OSKEN_LAUNCH = REPO / "tests" / "controllers" / "osken_launch.py"
L2_APP = REPO / "tests" / "controllers" / "l2_learning.py"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proc:
    """A process we started, its log file, and a way to stop exactly it."""

    def __init__(self, name: str, argv: list[str], log: pathlib.Path):
        self.name, self.log = name, log
        self._log_file = open(log, "wb")
        self.popen = subprocess.Popen(argv, stdout=self._log_file, stderr=subprocess.STDOUT)

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self) -> None:
        if self.alive():
            self.popen.terminate()
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        self._log_file.close()

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def wait_for(predicate, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def rest(port: int, method: str, path: str, body=None, raw: bytes | None = None) -> tuple[int, object]:
    """One REST call; returns (status, parsed JSON body or None)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            text = resp.read()
            return resp.status, json.loads(text) if text else None
    except urllib.error.HTTPError as err:
        text = err.read()
        return err.code, json.loads(text) if text else None


def start_osken(port: int, log: pathlib.Path) -> Proc:
    proc = Proc("os-ken", [sys.executable, str(OSKEN_LAUNCH), "--ofp-listen-host", "127.0.0.1",
                           "--ofp-tcp-listen-port", str(port), str(L2_APP)], log)

    def listening():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            assert proc.alive(), f"os-ken exited:\n{proc.tail()}"
            return False
    wait_for(listening, 20, "os-ken to listen")
    return proc


def start_oneswitch(platform_json: str | None, log: pathlib.Path, *, listen: int, south: int, rest_port: int,
                    controller: int | None, extra: list[str] = ()) -> Proc:
    assert JAR.exists(), f"{JAR} missing: build it with `make oneswitch`"
    argv = ["java", "-jar", str(JAR), "--listen", f"ptcp:{listen}",
            "--southbound", f"ptcp:{south}", "--rest", f"127.0.0.1:{rest_port}",
            "--controller", f"tcp:127.0.0.1:{controller}" if controller else "none", *extra]
    if platform_json:
        argv += ["--platform", platform_json]
    return Proc("oneswitch", argv, log)


def wait_healthy(proc: Proc, rest_port: int, controllers: int = 0, timeout: float = 30) -> dict:
    def ok():
        assert proc.alive(), f"OneSwitch exited:\n{proc.tail()}"
        try:
            status, health = rest(rest_port, "GET", "/v1/health")
        except OSError:
            return None
        if status == 200 and health["status"] == "ok" and health["controllers"] >= controllers:
            return health
        return None
    return wait_for(ok, timeout, "OneSwitch to see every switch and controller")


def ofctl(target: str, command: str, *args: str, check: bool = True, options: tuple[str, ...] = ()
          ) -> subprocess.CompletedProcess:
    """`ovs-ofctl -O OpenFlow13 [options] command target args...`."""
    result = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", *options, command, target, *args],
                            capture_output=True, text=True, timeout=30)
    if check and result.returncode != 0:
        raise AssertionError(f"ovs-ofctl {command} {target} {' '.join(args)} failed: {result.stderr}")
    return result


def switch_target(platform, switch_id: str) -> str:
    return platform.switch(switch_id)["openflow"]


def revalidate(platform) -> None:
    """Wait until every switch's datapath caches follow its flow table (DESIGN.md: OVS barrier semantics)."""
    for sw in platform.description["switches"]:
        subprocess.run(["ovs-appctl", "-t", sw["appctl"], "revalidator/wait"], check=True, capture_output=True,
                       timeout=30)


class _Datapath:
    """What os-ken's parsers need of a datapath: the OpenFlow 1.3 modules."""
    ofproto = ofproto_v1_3
    ofproto_parser = ofproto_v1_3_parser


class OfClient:
    """A minimal OpenFlow 1.3 client on a raw socket, messages built and parsed by os-ken."""

    dp = _Datapath()
    parser = ofproto_v1_3_parser
    ofp = ofproto_v1_3

    def __init__(self, port: int, hello: bool = True):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self._buf = b""
        self._xid = 100
        if hello:
            self.send(self.parser.OFPHello(self.dp))
            first = self.recv()
            assert first.msg_type == self.ofp.OFPT_HELLO, first

    def send(self, msg) -> int:
        self._xid += 1
        msg.set_xid(self._xid)
        msg.serialize()
        self.sock.sendall(bytes(msg.buf))
        return self._xid

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self, timeout: float = 10):
        """The next message, or None when the connection closed."""
        self.sock.settimeout(timeout)
        while True:
            if len(self._buf) >= 8:
                version, msg_type, length, xid = struct.unpack("!BBHI", self._buf[:8])
                if len(self._buf) >= length:
                    data, self._buf = self._buf[:length], self._buf[length:]
                    return ofproto_parser.msg(self.dp, version, msg_type, length, xid, data)
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self._buf += chunk

    def recv_until(self, msg_type: int, timeout: float = 10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = self.recv(max(0.1, deadline - time.monotonic()))
            if msg is None:
                return None
            if msg.msg_type == msg_type:
                return msg
        raise AssertionError(f"no message of type {msg_type} within {timeout} s")

    def echo(self, data: bytes = b"ping") -> bool:
        xid = self.send(self.parser.OFPEchoRequest(self.dp, data=data))
        reply = self.recv_until(self.ofp.OFPT_ECHO_REPLY)
        return reply is not None and reply.xid == xid and reply.data == data

    def close(self) -> None:
        self.sock.close()
