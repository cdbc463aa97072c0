"""Errors of the agent's service layer, each with its HTTP status and Nova-style fault name.

The API maps them to `{"<fault>": {"code": <status>, "message": <reason>}}`, as
Nova does; anything else becomes a 500 `computeFault` (and is logged).
"""
from __future__ import annotations


class AgentError(Exception):
    status = 500
    fault = "computeFault"


class BadRequest(AgentError):
    status = 400
    fault = "badRequest"


class Unauthorized(AgentError):
    status = 401
    fault = "unauthorized"


class NotFound(AgentError):
    status = 404
    fault = "itemNotFound"


class Conflict(AgentError):
    """The request is valid but the current state forbids it (e.g. no room, mid-migration)."""

    status = 409
    fault = "conflictingRequest"


class Unavailable(AgentError):
    """A component the agent depends on (OneSwitch, the platform) does not answer."""

    status = 503
    fault = "serviceUnavailable"
