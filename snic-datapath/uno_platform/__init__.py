"""UNO's server platforms: bring one up, find a running one, take it down.

    from uno_platform import TestbedSpec, up, load, down
    platform = up(TestbedSpec(prefix="t1-", vms=2, pcie_gbps=1))
    platform.description          # the JSON description (platform.schema.json)
    down("t1-")

Profiles: `emulated` (every side in namespaces of this machine) and `remote` (each sNIC a machine of its
own, reached over a management link). Profiles implement `uno_platform.base.Platform` and register in
PROFILES.
"""
from __future__ import annotations

import json
import pathlib

from uno_platform.base import Platform, description_path, read_description
from uno_platform.emulated import EmulatedPlatform
from uno_platform.errors import PlatformError, SpecError
from uno_platform.remote import RemotePlatform
from uno_platform.spec import TestbedSpec

DEFAULT_STATE_DIR = "/run/uno"
PROFILES: dict[str, type[Platform]] = {EmulatedPlatform.profile: EmulatedPlatform,
                                       RemotePlatform.profile: RemotePlatform}

__all__ = ["DEFAULT_STATE_DIR", "PROFILES", "Platform", "PlatformError", "SpecError", "TestbedSpec",
           "down", "list_prefixes", "load", "up"]


def _profile(name: str) -> type[Platform]:
    try:
        return PROFILES[name]
    except KeyError:
        raise SpecError(f"unknown platform profile {name!r} (have: {', '.join(sorted(PROFILES))})") from None


def up(spec: TestbedSpec, profile: str = EmulatedPlatform.profile) -> Platform:
    return _profile(profile).up(spec)


def load(prefix: str, state_dir: str = DEFAULT_STATE_DIR) -> Platform:
    description = read_description(prefix, state_dir)
    return _profile(description["profile"])(description)


def down(prefix: str, state_dir: str = DEFAULT_STATE_DIR) -> list[str]:
    """Remove the testbed `prefix` (also a half-built one); returns problems met."""
    path = description_path(prefix, state_dir)
    profile = EmulatedPlatform.profile
    if path.exists():
        try:
            profile = json.loads(path.read_text()).get("profile", profile)
        except json.JSONDecodeError:
            pass  # a torn description: the ledger still says what to remove
    return _profile(profile).down(prefix, state_dir)


def list_prefixes(state_dir: str = DEFAULT_STATE_DIR) -> list[str]:
    root = pathlib.Path(state_dir)
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "platform.json").exists())
