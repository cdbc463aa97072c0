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


# The sink counts what arrives until told the source is done (a line on stdin with what it sent per flow), then
# until `idle` seconds pass without a packet: a starved source or a long hold never ends a run early. Once every
# packet sent has arrived it waits only COMPLETE_GRACE seconds more for late duplicates (a duplicate follows its
# original by microseconds to milliseconds), instead of `idle`. It also reports its socket's drops (a full
# receive buffer), read from /proc/net/udp by the socket's inode.
_UDP_SINK = textwrap.dedent("""
    import json, os, select, socket, struct, sys, time
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # past net.core.rmem_max (we are root): a sink starved on a busy host must not drop what it will read
    sock.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)  # SO_RCVBUFFORCE
    sock.bind((sys.argv[1], int(sys.argv[2])))
    idle = float(sys.argv[3])
    COMPLETE_GRACE = 0.25
    print("ready", flush=True)
    seen, dup, reordered, latencies, arrivals, late = {}, 0, 0, [], [], []
    last = {}
    source_done, sent_counts, complete = False, {}, False
    while True:
        wait = 600 if not source_done else min(idle, COMPLETE_GRACE) if complete else idle
        readable, _, _ = select.select([sock] + ([] if source_done else [sys.stdin]), [], [], wait)
        if not readable:
            break
        if sys.stdin in readable:
            sent_counts = json.loads(sys.stdin.readline())
            source_done = True
            complete = all(len(seen.get(int(f), ())) >= n for f, n in sent_counts.items())
            continue
        data = sock.recv(2048)
        now = time.time()
        flow, seq, sent = struct.unpack_from("!HId", data)
        got = seen.setdefault(flow, set())
        if seq in got:
            dup += 1
        got.add(seq)
        if seq < last.get(flow, -1):
            reordered += 1
            if len(late) < 20:
                late.append([flow, seq, last[flow], sent, now])
        last[flow] = max(seq, last.get(flow, -1))
        latencies.append(now - sent)
        arrivals.append(now)
        if source_done and not complete and len(got) >= sent_counts.get(str(flow), 0):
            complete = all(len(seen.get(int(f), ())) >= n for f, n in sent_counts.items())
    inode = str(os.fstat(sock.fileno()).st_ino)
    drops = next((int(f[-1]) for f in (line.split() for line in open("/proc/net/udp")) if f[9] == inode), 0)
    json.dump({"received": {str(f): len(s) for f, s in seen.items()},
               "missing": {str(f): sorted(set(range(max(s) + 1)) - s)[:20] for f, s in seen.items()},
               "duplicates": dup, "reordered": reordered, "reordered_first": late, "latencies": latencies,
               "arrivals": arrivals,
               "socket_drops": drops},
              sys.stdout)
""")

# The source sleeps between packets and, when it wakes late, sends what is due at once: it keeps the average
# rate without spinning a core (a real server has no core to spare). A send the kernel refuses is counted.
_UDP_SOURCE = textwrap.dedent("""
    import json, socket, struct, sys, time
    dst, port, flows, pps, seconds, size, sport = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                                   float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]),
                                                   int(sys.argv[7]))
    socks = []
    for f in range(flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("0.0.0.0", sport + f))
        socks.append(s)
    total = int(pps * seconds)
    pad = b"x" * max(0, size - 14)
    start, started_at = time.perf_counter(), time.time()
    seqs = [0] * flows
    refused, late_max, i = 0, 0.0, 0
    while i < total:
        now = time.perf_counter()
        due = min(total, int((now - start) * pps) + 1)
        late_max = max(late_max, now - (start + i / pps))
        for i in range(i, due):
            f = i % flows
            try:
                socks[f].sendto(struct.pack("!HId", f, seqs[f], time.time()) + pad, (dst, port))
            except OSError:
                refused += 1
            seqs[f] += 1
        i = due
        if i < total:
            time.sleep(max(0.0, start + i / pps - time.perf_counter()))
    json.dump({"sent": {str(f): n for f, n in enumerate(seqs)}, "seconds": time.perf_counter() - start,
               "started_at": started_at,
               "send_refused": refused, "source_late_max_s": late_max}, sys.stdout)
""")


class NumberedUdp:
    """Numbered UDP packets over many flows from a source namespace to a sink: loss, duplicates, order.

    Each packet carries (flow, sequence number, send time); flows differ by source port.
        with NumberedUdp(vm_ns, ext_ns, ext_ip, flows=1000, pps=10000, seconds=5) as run:
            ... migrate something while it runs ...
        run.result   # {"sent", "received", "missing", "duplicates", "reordered", "reordered_first" (the first 20:
                     #  flow, sequence number, the higher one that arrived before it, its send and arrival times),
                     #  "latencies", "arrivals",
                     #  "socket_drops", "send_refused", "source_late_max_s", "started_at"}

    The sink stops `idle` seconds after the last packet that follows the source's end.
    """

    def __init__(self, source_ns: str, sink_ns: str, sink_ip: str, *, flows: int, pps: float, seconds: float,
                 size: int = 64, port: int = 9999, sport: int = 20000, idle: float = 2.0):
        self.args = (source_ns, sink_ns, sink_ip, flows, pps, seconds, size, port, sport, idle)
        self.result: dict | None = None

    def __enter__(self) -> NumberedUdp:
        source_ns, sink_ns, sink_ip, flows, pps, seconds, size, port, sport, idle = self.args
        self.sink = subprocess.Popen(["ip", "netns", "exec", sink_ns, sys.executable, "-c", _UDP_SINK, sink_ip,
                                      str(port), str(idle)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        assert self.sink.stdout.readline().strip() == "ready"
        self.source = subprocess.Popen(["ip", "netns", "exec", source_ns, sys.executable, "-c", _UDP_SOURCE,
                                        sink_ip, str(port), str(flows), str(pps), str(seconds), str(size),
                                        str(sport)], stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc) -> None:
        try:
            sent, _ = self.source.communicate(timeout=600)
            received, _ = self.sink.communicate(json.dumps(json.loads(sent)["sent"]) + "\n", timeout=600)
        finally:
            for proc in (self.source, self.sink):
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        if exc[0] is None:
            self.result = {**json.loads(received), **json.loads(sent)}

    @property
    def lost(self) -> int:
        return sum(n - self.result["received"].get(f, 0) for f, n in self.result["sent"].items())
