"""What an operator installs on real smart NICs, rendered from the same TestbedSpec as the emulated platforms.

Each profile module (bluefield, netronome) has `render(spec) -> {relative path: file text}`;
`common` has what both write. Rendering is pure: nothing here touches a NIC. The files are checked against the
vendors' documented names and settings only (each profile cites its sources); nothing is claimed beyond that.
"""
from __future__ import annotations

from uno_platform.errors import SpecError
from uno_platform.hardware import bluefield, netronome
from uno_platform.spec import TestbedSpec

PROFILES = {"bluefield": bluefield, "netronome": netronome}


def _profile(name: str):
    if name not in PROFILES:
        raise SpecError(f"unknown hardware profile {name!r}: choose one of {', '.join(sorted(PROFILES))}")
    return PROFILES[name]


def render(spec: TestbedSpec, profile: str) -> dict[str, str]:
    """The files (relative path -> text) that set `profile`'s hardware up as `spec` asks; SpecError if it cannot."""
    module = _profile(profile)
    spec.validate()
    return module.render(spec)

