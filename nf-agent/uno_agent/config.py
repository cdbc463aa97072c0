"""The agent's configuration: declared once with types and defaults, validated, loud on errors.

A config file is JSON with any of the keys of DEFAULTS (nested the same way);
unknown keys and wrong types are errors naming the key. Command-line flags
override the file. `uno-agent --check-config FILE` validates without starting.
"""
from __future__ import annotations

import copy
import dataclasses
import json
import pathlib

from uno_agent.migration_steps import ALL_FAULTS

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]

DEFAULTS: dict = {
    "listen": "127.0.0.1:8774",
    "token_file": None,             # a file holding the X-Auth-Token; None = no authentication
    "platform": {"prefix": "uno-", "state_dir": "/run/uno"},
    "oneswitch_url": "http://127.0.0.1:8181",
    "oneswitch_token_file": None,   # the token OneSwitch's REST wants (its rest_token_file), if any
    "oneswitch_openflow": "tcp:127.0.0.1:6634",   # OneSwitch's passive listener: virtual flow counters
    "database": None,               # None = <state_dir>/<prefix>/agent/inventory.db
    "nf_bin_dir": str(REPO_ROOT / "nfs" / "build" / "bin"),
    "flavors_file": None,           # extra or replacement flavors (JSON list), merged by id
    "launcher": "process",
    "libvirt_uri": "lxc:///system",  # with launcher "libvirt"
    # Real failures injected into migrations, to test the rollback; never in production.
    # Entries "step=action" from uno_agent.migration_steps.FAULTS, CRASH_FAULTS or REMOTE_FAULTS (the remote
    # profile's), e.g. ["state=corrupt-state"].
    "migration_faults": [],
    "monitor": {
        "enabled": True,
        "interval_s": 2.0,          # polling period of switch counters
        "smoothing": 0.5,           # EWMA weight of the newest sample, 0 < a <= 1
        "replace_every": 5,         # re-run placement every N polls
        "threshold_cores": 0.5,     # migrate only if placement saves more host cores than this
        "dampening_s": 60.0,        # ...and the NF has not moved for this long
    },
}


class ConfigError(ValueError):
    """A configuration value is missing, unknown or of the wrong type (one-line reason)."""


@dataclasses.dataclass(frozen=True)
class MonitorConfig:
    enabled: bool
    interval_s: float
    smoothing: float
    replace_every: int
    threshold_cores: float
    dampening_s: float


@dataclasses.dataclass(frozen=True)
class AgentConfig:
    host: str
    port: int
    token: str | None
    prefix: str
    state_dir: str
    oneswitch_url: str
    oneswitch_token: str | None
    oneswitch_openflow: str
    database: pathlib.Path
    run_dir: pathlib.Path
    nf_bin_dir: pathlib.Path
    flavors_file: pathlib.Path | None
    launcher: str
    libvirt_uri: str
    migration_faults: dict[str, str]
    monitor: MonitorConfig


def _merge(base: dict, override: dict, where: str = "") -> dict:
    merged = copy.deepcopy(base)
    for key, value in override.items():
        path = f"{where}{key}"
        if key not in base:
            raise ConfigError(f"unknown configuration key {path!r}")
        if isinstance(base[key], dict):
            if not isinstance(value, dict):
                raise ConfigError(f"{path} must be an object")
            merged[key] = _merge(base[key], value, path + ".")
        else:
            merged[key] = value
    return merged


def _typed(raw: dict, path: str, kind: type, *, optional: bool = False):
    value = raw
    for part in path.split("."):
        value = value[part]
    if value is None and optional:
        return None
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise ConfigError(f"{path} must be a {kind.__name__}, not {value!r}")
    return value


def _faults(entries: list) -> dict[str, str]:
    faults = {}
    for entry in entries:
        if not isinstance(entry, str) or entry not in ALL_FAULTS:
            raise ConfigError(f"migration_faults: {entry!r} is not one of {', '.join(ALL_FAULTS)}")
        step, action = entry.split("=")
        faults[step] = action
    return faults


def _token(raw: dict, key: str) -> str | None:
    """The token in the file `key` names, if it names one."""
    token_file = _typed(raw, key, str, optional=True)
    if not token_file:
        return None
    try:
        token = pathlib.Path(token_file).read_text().strip()
    except OSError as exc:
        raise ConfigError(f"cannot read {key} {token_file}: {exc.strerror}") from None
    if not token:
        raise ConfigError(f"{key} {token_file} is empty")
    return token


def load(file: str | None = None, overrides: dict | None = None) -> AgentConfig:
    """Build the configuration from DEFAULTS, an optional JSON file and flag overrides."""
    raw = DEFAULTS
    if file:
        try:
            data = json.loads(pathlib.Path(file).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(f"cannot read {file}: {exc}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{file} must hold a JSON object")
        raw = _merge(raw, data)
    raw = _merge(raw, overrides or {})
    return _validate(raw)


def _validate(raw: dict) -> AgentConfig:
    listen = _typed(raw, "listen", str)
    host, _, port_text = listen.rpartition(":")
    if not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ConfigError(f"listen must be HOST:PORT, not {listen!r}")
    token = _token(raw, "token_file")
    prefix = _typed(raw, "platform.prefix", str)
    state_dir = _typed(raw, "platform.state_dir", str)
    agent_dir = pathlib.Path(state_dir) / prefix / "agent"
    database = _typed(raw, "database", str, optional=True)
    flavors_file = _typed(raw, "flavors_file", str, optional=True)
    launcher = _typed(raw, "launcher", str)
    if launcher not in ("process", "libvirt"):
        raise ConfigError(f"launcher must be 'process' or 'libvirt', not {launcher!r}")
    monitor = MonitorConfig(
        enabled=_typed(raw, "monitor.enabled", bool),
        interval_s=_typed(raw, "monitor.interval_s", float),
        smoothing=_typed(raw, "monitor.smoothing", float),
        replace_every=_typed(raw, "monitor.replace_every", int),
        threshold_cores=_typed(raw, "monitor.threshold_cores", float),
        dampening_s=_typed(raw, "monitor.dampening_s", float),
    )
    if monitor.interval_s <= 0:
        raise ConfigError("monitor.interval_s must be positive")
    if not 0 < monitor.smoothing <= 1:
        raise ConfigError("monitor.smoothing must be in (0, 1]")
    if monitor.replace_every < 1:
        raise ConfigError("monitor.replace_every must be at least 1")
    return AgentConfig(
        host=host, port=int(port_text), token=token, prefix=prefix, state_dir=state_dir,
        oneswitch_url=_typed(raw, "oneswitch_url", str).rstrip("/"),
        oneswitch_token=_token(raw, "oneswitch_token_file"),
        oneswitch_openflow=_typed(raw, "oneswitch_openflow", str),
        database=pathlib.Path(database) if database else agent_dir / "inventory.db",
        run_dir=agent_dir, nf_bin_dir=pathlib.Path(_typed(raw, "nf_bin_dir", str)),
        flavors_file=pathlib.Path(flavors_file) if flavors_file else None,
        launcher=launcher, libvirt_uri=_typed(raw, "libvirt_uri", str),
        migration_faults=_faults(_typed(raw, "migration_faults", list)), monitor=monitor,
    )
