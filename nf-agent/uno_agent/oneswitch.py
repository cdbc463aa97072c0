"""OneSwitch's REST API as the agent uses it: virtual ports for physical ones, and remapping.

The controller only ever sees the virtual ports this client asks for; OneSwitch
announces them with PORT_STATUS. Network failures and 5xx become Unavailable,
refusals (4xx) become Conflict, each with OneSwitch's own reason.
"""
from __future__ import annotations

import dataclasses
import http.client
import urllib.error

from uno_oneswitch.client import http_json

from uno_agent.errors import Conflict, Unavailable

TIMEOUT_S = 10.0


@dataclasses.dataclass(frozen=True)
class Remapped:
    """How a remap went: OneSwitch's stage times (seconds: add, switch, drain), and how long from its answer
    OneSwitch still forwards what the old port sends (its `remap_grace`)."""

    stages: dict[str, float]
    old_entries_kept_s: float


class PortMapper:
    """Client of OneSwitch's /v1/ports resources, over OneSwitch's own REST client."""

    def __init__(self, base_url: str, token: str | None = None):
        self.base_url = base_url.rstrip("/")
        self.headers = {"X-Auth-Token": token} if token else None

    def _call(self, method: str, path: str, *, missing_ok: bool = False, body: dict | None = None) -> dict | None:
        try:
            status, answer = http_json(self.base_url + path, method, body, headers=self.headers, timeout=TIMEOUT_S)
        except (OSError, http.client.HTTPException, ValueError) as exc:  # refused, timed out, not HTTP or not JSON
            why = exc.reason if isinstance(exc, urllib.error.URLError) else exc
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

    def drain_from(self, switch_id: str, timeout_s: float) -> bool:
        """Whether what `switch_id` sent over its PCIe links until now has been forwarded by the other switches
        (OneSwitch's drain markers came back within `timeout_s`)."""
        answer = self._call("POST", "/v1/drains", body={"from": switch_id, "timeout_ms": max(1, int(timeout_s * 1e3))})
        return bool(answer["drained"])

    def mappings(self) -> dict[int, tuple[str, str]]:
        """Virtual port -> (switch id, physical port name)."""
        ports = self._call("GET", "/v1/ports")["ports"]
        return {int(p["virtual_port"]): (p["switch"], p["port"]) for p in ports}


def _reason(answer: object) -> str:
    """OneSwitch's reason in an error answer (a JSON object with `error`), or what there is."""
    if isinstance(answer, dict):
        return str(answer.get("error", answer))[:200]
    return "(no JSON reason)" if answer is None else str(answer)[:200]
