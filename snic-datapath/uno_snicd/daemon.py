"""The sNIC daemon: a mutual-TLS server whose requests act on the sNIC's own side (`SwitchSide`).

Each connection carries requests and replies (`wire`), one at a time. A `control` request turns the
connection into a byte pipe to one NF's control socket, so that the agent speaks the NF control protocol
(stats, buffering, state export and import) to an NF on the sNIC as it does to one on the host, through TLS.

The NFs it started are kept in a file, so a restarted daemon knows them again (by pid and start time).
"""
from __future__ import annotations

import json
import logging
import os
import pathlib
import re
import select
import socket
import socketserver
import ssl
import subprocess
import threading
import time

from uno_nfs.command import control_socket, prepare_nf
from uno_nfs.control import accepts
from uno_platform import losses, system, unixctl
from uno_platform.errors import PlatformError
from uno_platform.switch_side import SwitchSide
from uno_snicd import wire

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 32           # authenticated connections; beyond this a new one is closed: memory stays bounded
MAX_HANDSHAKES = 8             # connections not authenticated yet, counted apart: anyone who can reach the address
HANDSHAKE_TIMEOUT = 3.0        # may open them, and they must not take the agent's places
CONTROL_CONNECT_TIMEOUT = 5.0  # an NF whose control socket does not accept (its backlog full)
# A peer that vanished (a host that crashed, a link down for good) is found out and its connection closed, freeing
# its place and the NF's control client: probes after 10 s idle, every 5 s, 3 unanswered; unacknowledged data
# gives up after 30 s.
KEEPALIVE = ((socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1), (socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 10),
             (socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 5), (socket.IPPROTO_TCP, socket.TCP_KEEPCNT, 3),
             (socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, 30_000))
READY_TIMEOUT = 10.0
MAX_CONFIG = 1 << 20
MAX_HOLD = 1 << 20
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_PORT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,13}$")   # + "x" for the NF's end: 15 characters at most
_PIPE_CHUNK = 64 * 1024
# Sent in one write: the switch resumes its revalidators even if this daemon dies after sending them
PURGE_SEQUENCE = ["revalidator/pause", "revalidator/purge", "revalidator/resume"]
SWITCH_CLIENT_OPS = frozenset({"ping", "purge_datapath"})   # all OneSwitch's certificate may ask for


class RequestError(Exception):
    """A request the daemon refuses or cannot carry out; its message goes back to the client."""


class NfTable:
    """The NFs this daemon started, by instance id, kept in `path` (written whole, atomically)."""

    def __init__(self, path: pathlib.Path):
        self.path = path
        self._nfs: dict[str, dict] = json.loads(path.read_text()) if path.exists() else {}
        self._lock = threading.Lock()     # readers do not wait for a start (the daemon's lock): a copy each

    def get(self, instance_id: str) -> dict | None:
        with self._lock:
            return self._nfs.get(instance_id)

    def all(self) -> dict[str, dict]:
        with self._lock:
            return dict(self._nfs)

    def put(self, instance_id: str, entry: dict | None) -> None:
        with self._lock:
            if entry is None:
                self._nfs.pop(instance_id, None)
            else:
                self._nfs[instance_id] = entry
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._nfs))
            os.replace(tmp, self.path)


class SnicDaemon:
    """What the requests do. `bin_dir` holds the NF binaries; `run_dir` the NFs' control sockets, configs and
    logs (reachable by root only)."""

    def __init__(self, side: SwitchSide, bin_dir: pathlib.Path, run_dir: pathlib.Path, port_prefix: str):
        # only ports named `port_prefix`...: the sNIC's other interfaces (its uplinks, its PCIe and management
        # links) are not the agent's to add, delete or plug an NF into
        self.side, self.bin_dir, self.run_dir, self.port_prefix = side, bin_dir, run_dir, port_prefix
        run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        run_dir.chmod(0o700)      # made root-only even if it was there
        self.table = NfTable(run_dir / "nfs.json")
        self.lock = threading.Lock()      # one change of NFs or ports at a time
        self.children: dict[int, subprocess.Popen] = {}
        self.purges = 0
        self.purge_lock = threading.Lock()

    def handle(self, request: dict) -> dict:
        op = request.get("op")
        handler = getattr(self, f"op_{op}", None) if isinstance(op, str) and op.isidentifier() else None
        if handler is None:
            raise RequestError(f"unknown request {op!r}")
        return handler(request)

    # -- requests --------------------------------------------------------------------------

    def op_ping(self, request: dict) -> dict:
        return {"bridge": self.side.bridge, "pid": os.getpid(), "purges": self.purges}

    def op_purge_datapath(self, request: dict) -> dict:
        """What OneSwitch asks after changing the bridge's rules: the sNIC switch's cached datapath flows go (its
        control socket is reachable on the sNIC only); see oneswitch's PhysicalSwitches.revalidated."""
        with self.purge_lock:   # one sequence at a time: two interleaved could leave a resume waiting for ever
            unixctl.call_all(self.side.ovs.appctl_socket, PURGE_SEQUENCE)
            self.purges += 1
        return {}

    def op_add_port(self, request: dict) -> dict:
        with self.lock:
            created = self.side.add_port(self._port(request))
        return {"name": created["name"], "ofport": created["ofport"]}

    def op_remove_port(self, request: dict) -> dict:
        with self.lock:
            self.side.remove_port(self._port(request))
        return {}

    def op_port_up(self, request: dict) -> dict:
        return {"up": self.side.port_up(self._port(request))}

    def op_port_backlog(self, request: dict) -> dict:
        return {"bytes": self.side.port_backlog(self._port(request))}

    def op_cpu_seconds(self, request: dict) -> dict:
        return {"seconds": self.side.cgroup.usage_seconds()}

    def op_start_nf(self, request: dict) -> dict:
        instance_id, port = _instance(request), self._port(request)
        binary = self._binary(request.get("binary"))
        config_text, hold = request.get("config"), request.get("hold_packets")
        if config_text is not None and (not isinstance(config_text, str) or len(config_text) > MAX_CONFIG):
            raise RequestError(f"config must be a string of at most {MAX_CONFIG} characters")
        if hold is not None and (not isinstance(hold, int) or isinstance(hold, bool) or not 1 <= hold <= MAX_HOLD):
            raise RequestError(f"hold_packets must be an integer between 1 and {MAX_HOLD}")
        with self.lock:
            if self.table.get(instance_id) is not None:
                raise RequestError(f"NF {instance_id} already runs")
            if any(entry["port"] == port for entry in self.table.all().values()):
                raise RequestError(f"port {port} is another NF's")
            created = self.side.add_port(port)
            try:
                entry = self._start(instance_id, binary, created, config_text, hold)
            except BaseException:
                self.side.remove_port(port)
                raise
            self.table.put(instance_id, entry)
        log.info("started NF %s (%s) on port %s as pid %d", instance_id, binary.name, port, entry["pid"])
        return {**entry, "ofport": created["ofport"]}

    def op_stop_nf(self, request: dict) -> dict:
        instance_id, keep_port = _instance(request), bool(request.get("keep_port", False))
        with self.lock:
            entry = self.table.get(instance_id)
            if entry is None:
                return {"stopped": False}
            system.stop_process(entry["pid"], entry["pid_start"])
            child = self.children.pop(entry["pid"], None)
            if child is not None:
                child.wait()
            if not keep_port:
                self.side.remove_port(entry["port"])
            for suffix in (".sock", ".conf"):
                (self.run_dir / f"{instance_id}{suffix}").unlink(missing_ok=True)
            self.table.put(instance_id, None)
        log.info("stopped NF %s", instance_id)
        return {"stopped": True}

    def op_losses(self, request: dict) -> dict:
        """Where this sNIC dropped packets (uno_platform.losses.machine_drops); `pcie_ports` names its ends of the
        PCIe links, whose shapers count what they dropped toward the host."""
        pcie_ports = request.get("pcie_ports")
        if not isinstance(pcie_ports, list) or not all(isinstance(p, str) and _PORT.match(p) for p in pcie_ports):
            raise RequestError("pcie_ports must be a list of port names")
        ovs = self.side.ovs
        return losses.machine_drops(ovsdb=ovs.db_socket, appctl=ovs.appctl_socket,
                                    openflow=ovs.mgmt_socket(self.side.bridge), dpdk=self.side.datapath == "dpdk",
                                    pcie_ports=pcie_ports)

    def op_alive(self, request: dict) -> dict:
        entry = self.table.get(_instance(request))
        return {"alive": entry is not None and system.is_alive(entry["pid"], entry["pid_start"])}

    def op_list(self, request: dict) -> dict:
        return {"nfs": {i: {**e, "alive": system.is_alive(e["pid"], e["pid_start"])}
                        for i, e in self.table.all().items()}}

    def control_socket(self, request: dict) -> socket.socket:
        """A connection to the NF's control socket (for a `control` request)."""
        instance_id = _instance(request)
        if self.table.get(instance_id) is None:
            raise RequestError(f"no NF {instance_id}")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(CONTROL_CONNECT_TIMEOUT)
        try:
            sock.connect(str(self._control(instance_id)))
        except OSError as exc:
            sock.close()
            raise RequestError(f"NF {instance_id} does not answer: {exc}") from None
        sock.settimeout(None)
        return sock

    # -- helpers ---------------------------------------------------------------------------

    def _port(self, request: dict) -> str:
        value = request.get("port")
        if not isinstance(value, str) or not _PORT.match(value) or not value.startswith(self.port_prefix):
            raise RequestError(f"port must be an NF port ({self.port_prefix}..., matching {_PORT.pattern}), "
                               f"not {value!r}")
        return value

    def _binary(self, name: object) -> pathlib.Path:
        if not isinstance(name, str) or not _ID.match(name):
            raise RequestError(f"binary must be an NF's name, not {name!r}")
        path = self.bin_dir / name
        if not path.is_file():
            raise RequestError(f"no NF binary {name} on this sNIC")
        return path

    def _control(self, instance_id: str) -> pathlib.Path:
        return control_socket(self.run_dir, instance_id)

    def _start(self, instance_id: str, binary: pathlib.Path, created: dict, config_text: str | None,
               hold: int | None) -> dict:
        control = self._control(instance_id)
        argv = prepare_nf(self.run_dir, instance_id, str(binary), iface=created["nf_ifname"],
                          backend=created.get("backend", "afpacket"), hold_packets=hold, config_text=config_text)
        log_path = self.run_dir / f"{instance_id}.log"
        with open(log_path, "ab") as log_out:
            proc = self.side.spawn(argv, stdin=subprocess.DEVNULL, stdout=log_out, stderr=log_out,
                                   start_new_session=True)
        started = system.start_time(proc.pid)
        deadline = time.monotonic() + READY_TIMEOUT
        while not (accepts(control) and self.side.port_up(created["name"])):
            if proc.poll() is not None or time.monotonic() > deadline:
                system.stop_process(proc.pid, started)
                proc.wait()
                raise RequestError(f"{binary.name} did not start: {system.last_line(log_path)}")
            time.sleep(0.01)
        self.children[proc.pid] = proc
        return {"pid": proc.pid, "pid_start": started, "port": created["name"], "binary": binary.name}


def _instance(request: dict) -> str:
    value = request.get("id")
    if not isinstance(value, str) or not _ID.match(value):
        raise RequestError(f"id must match {_ID.pattern}, not {value!r}")
    return value





# -- the server ------------------------------------------------------------------------------

class Server(socketserver.ThreadingTCPServer):
    """Accepts TLS connections from the clients `clients` names only, each allowed the requests it maps it to (None:
    all of them): the agent, and OneSwitch for purges of the switch's cached datapath flows.

    A connection holds one of MAX_HANDSHAKES places until its handshake ends (at most HANDSHAKE_TIMEOUT), then,
    authenticated, one of MAX_CONNECTIONS: connections that never authenticate, which any process that reaches
    the address can open, cannot take the agent's places (they can still delay its new connections by filling
    the handshake places, HANDSHAKE_TIMEOUT at a time)."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], tls: ssl.SSLContext, clients: dict[str, frozenset[str] | None],
                 daemon: SnicDaemon):
        self.tls, self.clients, self.snicd = tls, clients, daemon
        self.handshakes = threading.BoundedSemaphore(MAX_HANDSHAKES)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        super().__init__(address, _Connection)

    def process_request(self, request, client_address) -> None:
        if not self.handshakes.acquire(blocking=False):
            log.warning("refused a connection from %s: %d handshakes under way", client_address[0], MAX_HANDSHAKES)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)


class _Connection(socketserver.BaseRequestHandler):
    server: Server

    def handle(self) -> None:
        peer = self.client_address[0]
        try:
            sock, allowed = self._authenticated()
        except (OSError, wire.ChannelError) as exc:
            log.warning("refused a connection from %s: %s", peer, exc)
            return
        finally:
            self.server.handshakes.release()
        if not self.server.slots.acquire(blocking=False):
            log.warning("refused a connection from %s: %d connections open", peer, MAX_CONNECTIONS)
            sock.close()
            return
        try:
            self._serve(sock, allowed)
        except (OSError, wire.ChannelError) as exc:
            log.info("connection from %s ended: %s", peer, exc)
        finally:
            sock.close()
            self.server.slots.release()

    def _authenticated(self) -> tuple[ssl.SSLSocket, frozenset[str] | None]:
        """The connection over TLS, and what its peer, one of the server's clients, may ask for; OSError or
        ChannelError (the connection closed) if not."""
        for level, option, value in KEEPALIVE:
            self.request.setsockopt(level, option, value)
        self.request.settimeout(HANDSHAKE_TIMEOUT)
        sock = self.server.tls.wrap_socket(self.request, server_side=True)    # takes over the descriptor
        try:
            name = wire.check_peer(sock, self.server.clients)
        except wire.ChannelError:
            sock.close()
            raise
        sock.settimeout(None)
        return sock, self.server.clients[name]

    def _serve(self, sock: ssl.SSLSocket, allowed: frozenset[str] | None) -> None:
        daemon = self.server.snicd
        while (request := wire.recv(sock)) is not None:
            if allowed is not None and request.get("op") not in allowed:
                wire.send(sock, {"error": f"request {request.get('op')!r} is not this client's to make"})
                continue
            if request.get("op") == "control":
                try:
                    nf = daemon.control_socket(request)
                except RequestError as exc:
                    wire.send(sock, {"error": str(exc)})
                    continue
                wire.send(sock, {"ok": True})
                _pipe(sock, nf)
                return
            try:
                reply = {"ok": True, **daemon.handle(request)}
            except (RequestError, PlatformError, OSError) as exc:
                reply = {"error": str(exc)}
            wire.send(sock, reply)


def _pipe(tls: ssl.SSLSocket, nf: socket.socket) -> None:
    """Carry bytes both ways until either side closes."""
    with nf:
        while True:
            readable = [tls] if tls.pending() else select.select([tls, nf], [], [])[0]
            for source, sink in ((tls, nf), (nf, tls)):
                if source in readable:
                    data = source.recv(_PIPE_CHUNK)
                    if not data:
                        return
                    sink.sendall(data)
