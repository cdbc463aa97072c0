"""Errors raised by the platform, each carrying a one-line reason for the operator."""


class PlatformError(Exception):
    """Something the platform could not do (a command failed, a process died)."""


class SpecError(PlatformError):
    """The requested testbed is impossible (bad value, name too long, prefix in use)."""
