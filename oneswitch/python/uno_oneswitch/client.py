"""A small client of OneSwitch's REST API (standard library only)."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

DEFAULT_REST = "127.0.0.1:8181"


def http_json(url: str, method: str = "GET", body=None, raw: bytes | None = None, headers: dict | None = None,
              timeout: float = 30) -> tuple[int, object]:
    """One JSON HTTP call: (status, parsed JSON body or None).

    HTTP errors are returned, not raised; an error body that is not JSON gives None.
    """
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read()
            return resp.status, json.loads(text) if text else None
    except urllib.error.HTTPError as err:
        text = err.read()
        try:
            return err.code, json.loads(text) if text else None
        except ValueError:
            return err.code, None


def rest(port_or_address: int | str, method: str, path: str, body=None, raw: bytes | None = None,
         timeout: float = 30, token: str | None = None) -> tuple[int, object]:
    """One REST call to OneSwitch at `port_or_address` (a port on 127.0.0.1 or "host:port"), with the
    X-Auth-Token `token` when OneSwitch wants one (its rest_token_file)."""
    address = f"127.0.0.1:{port_or_address}" if isinstance(port_or_address, int) else port_or_address
    return http_json(f"http://{address}{path}", method, body, raw, timeout=timeout,
                     headers={"X-Auth-Token": token} if token else None)
