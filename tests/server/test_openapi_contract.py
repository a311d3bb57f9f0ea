"""The REST API keeps its OpenAPI contract under fuzzing.

Schemathesis (every check it has: status codes and bodies as documented, no 5xx, schema-valid
requests accepted and invalid ones rejected, ``Allow`` on 405, stateful sequences following the
documented links) drives a live server over TCP, in local mode and with an admin key (which /metrics needs).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import API_KEYS, KEY_ADMIN, LiveServer

CONFIG = Path(__file__).with_name("schemathesis.toml")


@pytest.mark.parametrize("keyed", [False, True], ids=["local-mode", "api-key"])
def test_rest_api_keeps_its_openapi_contract(
    make_server: Callable[..., LiveServer], tmp_path: Path, keyed: bool
) -> None:
    srv = make_server(api_keys=API_KEYS) if keyed else make_server()
    command = [str(Path(sys.executable).with_name("st")), "--config-file", str(CONFIG), "run"]
    command += [f"{srv.base_url}/openapi.json", "--checks", "all", "--max-examples", "25", "--seed", "7"]
    command += ["--workers", "1", *(["--header", f"Authorization: Bearer {KEY_ADMIN}"] if keyed else [])]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]
    assert "No issues found" in result.stdout
