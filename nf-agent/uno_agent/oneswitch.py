"""OneSwitch's REST API as the agent uses it: virtual ports for physical ones, remapping and drains.

The controller only ever sees the virtual ports this client asks for; OneSwitch
announces them with PORT_STATUS. Network failures and 5xx become Unavailable,
refusals (4xx) become Conflict, each with OneSwitch's own reason.
"""
from __future__ import annotations

import dataclasses
import json

import urllib3

from uno_agent.errors import Conflict, Unavailable

TIMEOUT_S = 10.0
# Connections are kept open and reused (urllib3's pool, safe across the agent's threads): a migration's remap
# and drain, in the window where the new NF holds packets, each cost a new TCP connection and urllib's setup
# otherwise (about 1.2 ms on loopback). A connection error before a request was sent is retried; a PUT (a remap
# to where the port is already goes nowhere) is retried once after a lost answer too, a POST never.
_RETRIES = urllib3.Retry(total=2, connect=2, read=1, status=0, redirect=0, other=0)


@dataclasses.dataclass(frozen=True)
class Remapped:
    """How a remap went: OneSwitch's stage times (seconds: add, switch, drain), and how long from its answer
    OneSwitch still forwards what the old port sends (its `remap_grace`)."""

    stages: dict[str, float]
    old_entries_kept_s: float


@dataclasses.dataclass(frozen=True)
class Drained:
    """How a drain went: whether every marker came back in time, and OneSwitch's own time for it (seconds; the
    rest of the request's time is the REST call's)."""

    drained: bool
    elapsed_s: float


class PortMapper:
    """Client of OneSwitch's /v1/ports and /v1/drains resources."""

    def __init__(self, base_url: str, token: str | None = None):
        self.base_url = base_url.rstrip("/")
        self.headers = {"Content-Type": "application/json", **({"X-Auth-Token": token} if token else {})}
        self._pool = urllib3.PoolManager(num_pools=1, maxsize=4, timeout=urllib3.Timeout(TIMEOUT_S),
                                         retries=_RETRIES)

    def _call(self, method: str, path: str, *, missing_ok: bool = False, body: dict | None = None) -> dict | None:
        try:
            response = self._pool.request(method, self.base_url + path, headers=self.headers,
                                          body=json.dumps(body).encode() if body is not None else None)
            status, answer = response.status, json.loads(response.data) if response.data else None
        except (urllib3.exceptions.HTTPError, ValueError) as exc:  # refused, timed out, not HTTP or not JSON
            why = _cause(exc)
            raise Unavailable(f"OneSwitch at {self.base_url} does not answer: "
                              f"{why.__class__.__name__}: {why}") from None
        if status >= 500:
            raise Unavailable(f"OneSwitch {method} {path}: {status} {_reason(answer)}")
        if status == 404 and missing_ok:
            return None
        if status >= 400:
            raise Conflict(f"OneSwitch refused {method} {path}: {_reason(answer)}")
        return answer

    def health(self) -> dict:
        return self._call("GET", "/v1/health")

    def add(self, switch_id: str, port: str) -> int:
        """Map the physical port to a fresh virtual port; returns its number."""
        mapping = self._call("POST", "/v1/ports", body={"switch": switch_id, "port": port})
        return int(mapping["virtual_port"])

    def remove(self, vport: int) -> None:
        """Unmap a virtual port; one that is not mapped any more is fine."""
        self._call("DELETE", f"/v1/ports/{vport}", missing_ok=True)

    def remap(self, vport: int, switch_id: str, port: str) -> Remapped:
        """Move a virtual port to another physical port, make-before-break; in effect on return."""
        remap = (self._call("PUT", f"/v1/ports/{vport}", body={"switch": switch_id, "port": port}) or {}).get(
            "remap", {})
        return Remapped({s["stage"]: s["elapsed_ms"] / 1e3 for s in remap.get("stages", [])},
                        remap.get("old_entries_kept_ms", 0) / 1e3)

    def drain_from(self, switch_id: str, timeout_s: float) -> Drained:
        """Whether what `switch_id` sent over its PCIe links until now has been forwarded by the other switches
        (OneSwitch's drain markers came back within `timeout_s`)."""
        answer = self._call("POST", "/v1/drains", body={"from": switch_id, "timeout_ms": max(1, int(timeout_s * 1e3))})
        return Drained(bool(answer["drained"]), float(answer["elapsed_ms"]) / 1e3)

    def mappings(self) -> dict[int, tuple[str, str]]:
        """Virtual port -> (switch id, physical port name)."""
        ports = self._call("GET", "/v1/ports")["ports"]
        return {int(p["virtual_port"]): (p["switch"], p["port"]) for p in ports}


def _reason(answer: object) -> str:
    """OneSwitch's reason in an error answer (a JSON object with `error`), or what there is."""
    if isinstance(answer, dict):
        return str(answer.get("error", answer))[:200]
    return "(no JSON reason)" if answer is None else str(answer)[:200]


def _cause(exc: BaseException) -> BaseException:
    """The error under urllib3's wrappers (a MaxRetryError's reason, then what that was raised from)."""
    while True:
        inner = exc.reason if isinstance(exc, urllib3.exceptions.MaxRetryError) else exc.__cause__
        if inner is None:
            return exc
        exc = inner
