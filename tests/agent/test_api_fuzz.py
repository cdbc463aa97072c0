"""Schema-driven fuzzing of the agent's REST API from its own /openapi.json (schemathesis)."""
from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.platform


def test_generated_requests_never_get_a_server_error(uno_stack, tmp_path):
    stack = uno_stack(snic_cores=0.5, vms=0)
    token = "fuzz-token"
    stack.agent.stop()
    (tmp_path / "token").write_text(token)
    stack.agent_config["token_file"] = str(tmp_path / "token")
    stack.token = token
    stack.start_agent()
    report = tmp_path / "schemathesis.txt"
    result = subprocess.run(
        [sys.executable, "-m", "schemathesis.cli", "run", f"{stack.agent_url}/openapi.json",
         "--header", f"X-Auth-Token: {token}",
         "--checks", "not_a_server_error,response_schema_conformance,status_code_conformance",
         "--max-examples", "25", "--workers", "1", "--phases", "examples,coverage,fuzzing,stateful",
         "--seed", "7", "--generation-database", "none", "--suppress-health-check", "all", "--no-color"],
        capture_output=True, text=True, timeout=900)
    report.write_text(result.stdout + result.stderr)
    assert result.returncode == 0, result.stdout[-6000:]
