"""The agent's REST API: thin Flask views over `service.AgentService`.

openapi.json is the contract: every request body is validated against the schema
the document gives for its operation before a view runs, so the document and
what the code accepts cannot drift apart. Errors are Nova-style JSON faults.
"""
from __future__ import annotations

import copy
import datetime
import hmac
import json
import logging
import pathlib
import re

import jsonschema
from flask import Flask, Response, jsonify, request
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from werkzeug.exceptions import HTTPException

from uno_agent.errors import AgentError, BadRequest, Unauthorized

log = logging.getLogger(__name__)

SPEC_FILE = pathlib.Path(__file__).with_name("openapi.json")
OPEN_PATHS = {"/health"}
_RULE_PARAM = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
_HTTP_FAULTS = {400: "badRequest", 401: "unauthorized", 403: "forbidden", 404: "itemNotFound",
                405: "methodNotAllowed", 409: "conflictingRequest", 413: "requestEntityTooLarge",
                415: "unsupportedMediaType"}


def load_spec() -> dict:
    return json.loads(SPEC_FILE.read_text())


def specialize(spec: dict, flavor_ids: list[str], sides: list[str]) -> dict:
    """The document for this agent: flavorRef and the sides a server may name become enums.

    Flavors come from the operator's catalog and sides from the platform, so the
    served document states exactly which values this agent accepts.
    """
    spec = copy.deepcopy(spec)
    schemas = spec["components"]["schemas"]
    server = schemas["CreateServer"]["properties"]["server"]["properties"]
    server["flavorRef"]["enum"] = sorted(flavor_ids)
    server["uno:pin"]["enum"] = list(sides)
    schemas["ServerAction"]["properties"]["migrate"]["properties"]["host"]["enum"] = list(sides)
    return spec


def _json_schema(node, spec: dict):
    """An OpenAPI 3.0 schema as plain JSON Schema: $refs inlined, `nullable` made explicit."""
    if isinstance(node, list):
        return [_json_schema(item, spec) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = spec
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        return _json_schema(target, spec)
    schema = {key: _json_schema(value, spec) for key, value in node.items() if key != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [schema, {"type": "null"}]}
    return schema


class RequestValidator:
    """Request-body schemas by (OpenAPI path, method), taken from the document."""

    def __init__(self, spec: dict):
        self.schemas = {}
        for path, item in spec["paths"].items():
            for method, operation in item.items():
                body = operation.get("requestBody") if isinstance(operation, dict) else None
                if body:
                    schema = _json_schema(body["content"]["application/json"]["schema"], spec)
                    self.schemas[(path, method.upper())] = jsonschema.Draft7Validator(schema)

    def body(self, rule: str, method: str) -> dict | None:
        """The validated JSON body of the current request (None if the operation takes none)."""
        validator = self.schemas.get((openapi_path(rule), method))
        if validator is None:
            return None
        if not request.is_json:
            raise BadRequest("the body must be JSON (Content-Type: application/json)")
        data = parse_json(request.get_data())
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "body"
            raise BadRequest(f"{where}: {error.message}")
        return data


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(raw: bytes):
    """A request body as JSON, strictly: NaN and Infinity (which Python's json accepts) and nesting too deep for
    the parser are the client's errors (400), not the server's."""
    try:
        return json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise BadRequest("the body is nested too deeply") from None
    except ValueError as exc:
        raise BadRequest(f"the body is not valid JSON: {exc}") from None


def openapi_path(flask_rule: str) -> str:
    """'/v2.1/servers/<server_id>' -> '/v2.1/servers/{server_id}'."""
    return _RULE_PARAM.sub(r"{\1}", flask_rule)


def _fault(status: int, fault: str, message: str) -> Response:
    response = jsonify({fault: {"code": status, "message": message}})
    response.status_code = status
    return response


def _iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).isoformat().replace("+00:00", "Z")


def create_app(service, *, token: str | None = None, registry=None) -> Flask:
    """The WSGI app. `service` is an AgentService; `registry` a prometheus CollectorRegistry."""
    app = Flask("uno_agent")
    app.config["MAX_CONTENT_LENGTH"] = 1 << 20
    spec = load_spec()
    if service is not None:
        spec = specialize(spec, [f.id for f in service.flavors()], service.switch_ids())
    validator = RequestValidator(spec)

    @app.before_request
    def _authenticate():
        if token and request.path not in OPEN_PATHS:
            given = request.headers.get("X-Auth-Token", "")
            if not hmac.compare_digest(given.encode(), token.encode()):
                raise Unauthorized("a valid X-Auth-Token header is required")

    def body() -> dict:
        return validator.body(request.url_rule.rule, request.method) or {}

    @app.errorhandler(AgentError)
    def _agent_error(exc: AgentError):
        if exc.status >= 500:
            log.error("%s %s: %s", request.method, request.path, exc)
        return _fault(exc.status, exc.fault, str(exc))

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        return _fault(exc.code, _HTTP_FAULTS.get(exc.code, "computeFault"), exc.description)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        log.exception("%s %s failed", request.method, request.path)
        return _fault(500, "computeFault", f"internal error: {exc.__class__.__name__}")

    # -- documents -----------------------------------------------------------------------

    @app.get("/health")
    def health():
        report = service.health()
        return jsonify(report), 200 if report["status"] == "ok" else 503

    @app.get("/openapi.json")
    def openapi():
        return jsonify(spec)

    @app.get("/metrics")
    def metrics():
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)

    # -- flavors -------------------------------------------------------------------------

    def flavor_view(flavor) -> dict:
        return {**flavor.to_json(), "links": [{"rel": "self", "href": f"/v2.1/flavors/{flavor.id}"}]}

    @app.get("/v2.1/flavors")
    def flavors():
        return {"flavors": [{"id": f.id, "name": f.name, "links": flavor_view(f)["links"]}
                            for f in service.flavors()]}

    @app.get("/v2.1/flavors/detail")
    def flavors_detail():
        return {"flavors": [flavor_view(f) for f in service.flavors()]}

    @app.get("/v2.1/flavors/<flavor_id>")
    def flavor(flavor_id: str):
        return {"flavor": flavor_view(service.flavor(flavor_id))}

    # -- servers -------------------------------------------------------------------------

    def server_view(server) -> dict:
        view = {
            "id": server.id, "name": server.name, "status": server.status,
            "flavor": {"id": server.flavor}, "kind": server.kind,
            "OS-EXT-SRV-ATTR:hypervisor_hostname": server.side, "uno:pin": server.pin,
            "ports": [{"virtual_port": server.vport}] if server.vport is not None else [],
            "addresses": ({"tenant": [{"addr": server.ip.split("/")[0], "version": 4,
                                       "OS-EXT-IPS-MAC:mac_addr": server.mac}]} if server.ip else {}),
            "created": _iso(server.created_at), "updated": _iso(server.moved_at),
            "links": [{"rel": "self", "href": f"/v2.1/servers/{server.id}"}],
        }
        if server.fault:
            view["fault"] = {"message": server.fault}
        return view

    @app.get("/v2.1/servers")
    def servers():
        return {"servers": [{"id": s.id, "name": s.name, "links": server_view(s)["links"]}
                            for s in service.servers()]}

    @app.get("/v2.1/servers/detail")
    def servers_detail():
        return {"servers": [server_view(s) for s in service.servers()]}

    @app.post("/v2.1/servers")
    def create_server():
        req = body()["server"]
        server = service.create_server(
            name=req["name"], flavor_id=req["flavorRef"], pin=req.get("uno:pin"),
            expected_gbps=req.get("uno:expected_gbps", 0.0), nf_config=req.get("uno:nf_config"))
        return {"server": server_view(server)}, 202

    @app.get("/v2.1/servers/<server_id>")
    def server(server_id: str):
        return {"server": server_view(service.server(server_id))}

    @app.delete("/v2.1/servers/<server_id>")
    def delete_server(server_id: str):
        service.delete_server(server_id)
        return "", 204

    @app.post("/v2.1/servers/<server_id>/action")
    def server_action(server_id: str):
        action = body()
        target = (action.get("migrate") or {}).get("host")
        return {"server": server_view(service.migrate(server_id, target, trigger="api"))}, 202

    # -- hypervisors, placement, traffic -------------------------------------------------

    @app.get("/v2.1/os-hypervisors/detail")
    def hypervisors():
        return {"hypervisors": service.hypervisors()}

    @app.get("/v2.1/os-hypervisors/<hypervisor_id>")
    def hypervisor(hypervisor_id: str):
        return {"hypervisor": service.hypervisor(hypervisor_id)}

    def placement_view(decision) -> dict:
        view = copy.deepcopy(decision)
        view["decided_at"] = _iso(view.get("decided_at"))
        return view

    @app.get("/v2.1/uno/placement")
    def placement():
        return {"placement": placement_view(service.placement())}

    @app.post("/v2.1/uno/placement")
    def reoptimize():
        apply = body()["reoptimize"].get("apply", False)
        return {"placement": placement_view(service.reoptimize(apply=apply, trigger="api"))}

    @app.get("/v2.1/uno/migrations")
    def migrations():
        return {"migrations": service.migrations()}

    @app.get("/v2.1/uno/losses")
    def losses():
        return {"losses": service.losses()}

    @app.get("/v2.1/uno/traffic")
    def traffic():
        report = service.traffic()
        return {"traffic": {**report, "updated": _iso(report["updated"])}}

    return app
