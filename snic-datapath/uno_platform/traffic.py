"""Traffic across a platform: ping, a TCP echo round trip, TCP throughput (iperf3).

Used by the tests and the demo to show that a path works and how fast it is.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time


def netns_run(netns: str, argv: list[str], timeout: float = 30, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", "netns", "exec", netns, *argv], capture_output=True, text=True,
                          timeout=timeout, **kwargs)


def ping(netns: str, address: str, count: int = 3) -> bool:
    result = netns_run(netns, ["ping", "-c", str(count), "-i", "0.2", "-W", "2", address])
    return result.returncode == 0


_ECHO_SERVER = textwrap.dedent("""
    import socket, sys
    srv = socket.create_server((sys.argv[1], int(sys.argv[2])))
    print("ready", flush=True)
    conn, _ = srv.accept()
    while data := conn.recv(65536):
        conn.sendall(data)
    conn.close()
""")

_ECHO_CLIENT = textwrap.dedent("""
    import hashlib, os, socket, sys, threading
    data = os.urandom(int(sys.argv[3]))
    sock = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
    def send():
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
    threading.Thread(target=send).start()
    got = hashlib.sha256()
    while chunk := sock.recv(65536):
        got.update(chunk)
    print(hashlib.sha256(data).hexdigest(), got.hexdigest())
""")


def tcp_echo(client_ns: str, server_ns: str, server_ip: str, nbytes: int = 1 << 20,
             port: int = 7007) -> tuple[str, str]:
    """Send `nbytes` random bytes over TCP to an echo server and back.

    Returns (sha256 sent, sha256 received back); equal when the path works both ways.
    """
    server = subprocess.Popen(["ip", "netns", "exec", server_ns, sys.executable, "-c", _ECHO_SERVER,
                               server_ip, str(port)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "ready"
        result = netns_run(client_ns, [sys.executable, "-c", _ECHO_CLIENT, server_ip, str(port),
                                       str(nbytes)], timeout=60)
        assert result.returncode == 0, result.stderr
        sent, received = result.stdout.split()
        return sent, received
    finally:
        server.kill()
        server.wait()


def tcp_throughput_mbps(client_ns: str, server_ns: str, server_ip: str, seconds: int = 5,
                        port: int = 5201) -> float:
    """TCP goodput measured by iperf3 at the receiver, in Mbit/s."""
    server = subprocess.Popen(["ip", "netns", "exec", server_ns, "iperf3", "-s", "-1", "-p", str(port),
                               "-B", server_ip], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            result = netns_run(client_ns, ["iperf3", "-c", server_ip, "-p", str(port), "-t", str(seconds),
                                           "-J"], timeout=seconds + 30)
            report = json.loads(result.stdout or "{}")
            if "connect" not in report.get("error", ""):
                break
            time.sleep(0.1)  # the server is not listening yet
        assert result.returncode == 0, report.get("error", result.stderr)
        return report["end"]["sum_received"]["bits_per_second"] / 1e6
    finally:
        server.kill()
        server.wait()
