"""The OpenAPI document and the Flask routes describe the same API, and bodies are checked against it."""
import pytest

from uno_agent.api import RequestValidator, create_app, load_spec, openapi_path
from uno_agent.errors import BadRequest

SPEC = load_spec()
IGNORED_METHODS = {"HEAD", "OPTIONS"}


def routes(app) -> set[tuple[str, str]]:
    found = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        for method in rule.methods - IGNORED_METHODS:
            found.add((openapi_path(rule.rule), method))
    return found


def documented() -> set[tuple[str, str]]:
    return {(path, method.upper()) for path, item in SPEC["paths"].items()
            for method in item if method != "parameters"}


def test_every_route_is_documented_and_every_documented_operation_exists():
    app = create_app(service=None)
    assert routes(app) == documented()


def test_path_parameters_match_the_document():
    for path, item in SPEC["paths"].items():
        names = {p["$ref"].rsplit("/", 1)[1] if "$ref" in p else p["name"]
                 for p in item.get("parameters", [])}
        assert names == set(part[1:-1] for part in path.split("/") if part.startswith("{")), path


@pytest.mark.parametrize("body, reason", [
    ({}, "'server' is a required property"),
    ({"server": {"name": "x"}}, "'flavorRef' is a required property"),
    ({"server": {"name": "x", "flavorRef": "l2fw", "extra": 1}}, "Additional properties"),
    ({"server": {"name": "", "flavorRef": "l2fw"}}, "server/name"),
    ({"server": {"name": "x", "flavorRef": "l2fw", "uno:pin": "gpu0"}}, "server/uno:pin"),
    ({"server": {"name": "x", "flavorRef": "l2fw", "uno:expected_gbps": -1}}, "server/uno:expected_gbps"),
])
def test_create_bodies_are_validated_against_the_document(body, reason):
    app = create_app(service=None)
    validator = RequestValidator(SPEC)
    with app.test_request_context("/v2.1/servers", method="POST", json=body):
        with pytest.raises(BadRequest, match=reason):
            validator.body("/v2.1/servers", "POST")


def test_nullable_migrate_accepts_null_and_an_object():
    app = create_app(service=None)
    validator = RequestValidator(SPEC)
    for body in ({"migrate": None}, {"migrate": {}}, {"migrate": {"host": "snic0"}}):
        with app.test_request_context("/v2.1/servers/x/action", method="POST", json=body):
            assert validator.body("/v2.1/servers/<server_id>/action", "POST") == body
    with app.test_request_context("/v2.1/servers/x/action", method="POST", json={"reboot": {}}):
        with pytest.raises(BadRequest):
            validator.body("/v2.1/servers/<server_id>/action", "POST")


def test_unknown_urls_and_methods_are_nova_style_faults():
    client = create_app(service=None).test_client()
    response = client.get("/v2.1/nothing")
    assert response.status_code == 404
    assert response.get_json() == {"itemNotFound": {"code": 404, "message": response.get_json()
                                                    ["itemNotFound"]["message"]}}
    response = client.put("/v2.1/flavors")
    assert response.status_code == 405 and "methodNotAllowed" in response.get_json()


def test_token_protects_everything_but_health():
    client = create_app(service=None, token="s3cret").test_client()
    response = client.get("/v2.1/flavors")
    assert response.status_code == 401 and "unauthorized" in response.get_json()
    assert client.get("/openapi.json", headers={"X-Auth-Token": "wrong"}).status_code == 401
    assert client.get("/openapi.json", headers={"X-Auth-Token": "s3cret"}).get_json()["openapi"] == "3.0.3"
