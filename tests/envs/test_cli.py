"""The ``envfarm`` CLI: envs / tasks / bench, with one-line errors and meaningful exit codes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner, Result

from envfarm.cli import cli, main
from envs import paths
from tests.envs.specs import SHOP, TASK

CLINIC = paths.BUILTIN_CATALOG / "clinic"


def run(*args: str, catalog: Path | None = None) -> Result:
    argv = [*args, "--catalog", str(catalog)] if catalog is not None else list(args)
    return CliRunner().invoke(cli, argv, env={"COLUMNS": "200", "ENVFARM_CATALOG": None})


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    """A catalog holding SHOP (with TASK) and a copy with a broken task."""
    root = tmp_path / "catalog"
    for env_id, tasks in [("shop", [TASK]), ("shop_broken", [{**TASK, "expects_change": False}])]:
        data = copy.deepcopy(SHOP)
        data["id"] = env_id
        directory = root / env_id
        directory.mkdir(parents=True)
        (directory / "seed.json").write_text(json.dumps(data.pop("seed")))
        (directory / "policy.md").write_text(data.pop("policy"))
        (directory / "spec.json").write_text(json.dumps(data))
        (directory / "tasks.json").write_text(json.dumps([{**t, "env": env_id} for t in tasks]))
    return root


def test_envs_list_json(catalog: Path) -> None:
    result = run("envs", "list", "--json", catalog=catalog)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert rows[0] == {
        "id": "shop",
        "name": "Tiny shop",
        "sector": "retail",
        "tables": 3,
        "tools": 6,
        "write_tools": 4,
        "tasks": 1,
    }
    assert [r["id"] for r in rows] == ["shop", "shop_broken"]


def test_envs_list_builtin_catalog() -> None:
    result = run("envs", "list", "--json")
    assert result.exit_code == 0, result.output
    by_id = {r["id"]: r for r in json.loads(result.stdout)}
    assert {"clinic", "retail"} <= set(by_id)
    clinic_spec = json.loads((CLINIC / "spec.json").read_text())
    assert by_id["clinic"]["tools"] == len(clinic_spec["tools"])
    assert by_id["clinic"]["tables"] == len(clinic_spec["tables"])


def test_envs_list_table(catalog: Path) -> None:
    result = run("envs", "list", catalog=catalog)
    assert result.exit_code == 0
    assert "2 environments" in result.stdout
    assert "Tiny shop" in result.stdout
    assert "6 (4)" in result.stdout


def test_ids_stay_whole_in_an_80_column_terminal(tmp_path: Path) -> None:
    env_id = "veterinary_clinic_visits_with_boarding"
    data = copy.deepcopy(SHOP) | {"id": env_id}
    directory = tmp_path / env_id
    directory.mkdir()
    (directory / "seed.json").write_text(json.dumps(data.pop("seed")))
    (directory / "policy.md").write_text(data.pop("policy"))
    (directory / "spec.json").write_text(json.dumps(data))
    tasks = [{**TASK, "env": env_id, "id": f"{env_id}-{n:03}", "instruction": "word " * 60} for n in (1, 2)]
    (directory / "tasks.json").write_text(json.dumps(tasks))

    def narrow(*args: str) -> str:
        result = CliRunner().invoke(cli, [*args, "--catalog", str(tmp_path)], env={"COLUMNS": "80"})
        assert result.exit_code == 0, result.output
        assert max(map(len, result.stdout.splitlines())) <= 80
        return result.stdout

    assert env_id in narrow("envs", "list")
    listed = narrow("tasks", "list", env_id)
    assert all(task["id"] in listed for task in tasks)
    shown = narrow("envs", "show", env_id)
    assert all(tool["name"] in shown for tool in SHOP["tools"])


def test_a_piped_list_keeps_every_name_whole(tmp_path: Path) -> None:
    data = copy.deepcopy(SHOP) | {"name": "A shop whose name is far too long for eighty columns of a table"}
    directory = tmp_path / data["id"]
    directory.mkdir()
    (directory / "seed.json").write_text(json.dumps(data.pop("seed")))
    (directory / "policy.md").write_text(data.pop("policy"))
    (directory / "spec.json").write_text(json.dumps(data))
    # No terminal and no COLUMNS: what `envfarm envs list | grep ...` sees.
    result = CliRunner().invoke(cli, ["envs", "list", "--catalog", str(tmp_path)], env={"COLUMNS": None})
    assert result.exit_code == 0, result.output
    assert "A shop whose name is far too long for eighty columns of a table" in result.stdout
    assert "…" not in result.stdout


def test_envs_show_clinic() -> None:
    spec = json.loads((CLINIC / "spec.json").read_text())
    result = run("envs", "show", "clinic")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{spec['name']} (clinic, {spec['sector']})")
    for t in spec["tables"]:
        assert t["name"] in result.stdout
    for t in spec["tools"]:
        assert t["name"] in result.stdout
    assert "Policy:" in result.stdout


def test_envs_show_json_has_no_seed(catalog: Path) -> None:
    result = run("envs", "show", "shop", "--json", catalog=catalog)
    assert result.exit_code == 0
    shown = json.loads(result.stdout)
    assert shown["id"] == "shop"
    assert "seed" not in shown
    assert shown["policy"] == "Be nice."
    assert [t["name"] for t in shown["tools"]] == [t["name"] for t in SHOP["tools"]]


def test_envs_check_clinic_passes() -> None:
    result = run("envs", "check", "clinic")
    assert result.exit_code == 0, result.output
    assert "clinic: ok" in result.stdout


def test_envs_check_json_reports_each_env(catalog: Path) -> None:
    result = run("envs", "check", "--json", catalog=catalog)
    assert result.exit_code == 1  # shop_broken has a problem
    reports = {r["env_id"]: r for r in json.loads(result.stdout)}
    assert reports["shop"]["ok"] is True
    assert reports["shop"]["tasks_passed"] == 1
    assert reports["shop_broken"]["ok"] is False
    assert reports["shop_broken"]["problems"] == [
        "[change] task shop-1: the task says the state is not to change, but the gold actions change it"
    ]


def test_envs_check_one_env(catalog: Path) -> None:
    assert run("envs", "check", "shop", catalog=catalog).exit_code == 0
    result = run("envs", "check", "shop_broken", catalog=catalog)
    assert result.exit_code == 1
    assert "shop_broken: 1 problem(s)" in result.stdout
    assert "gold actions change it" in result.stdout


def test_envs_lint_schemas_reference_envs_pass_every_vendor() -> None:
    result = run("envs", "lint-schemas", "clinic", "retail")
    assert result.exit_code == 0, result.output
    assert "OpenAI function calling, strict │ strict  │ 30    │ 30     │ 0" in result.stdout
    report = json.loads(run("envs", "lint-schemas", "--json").stdout)
    assert report["vendors"] == {v: {"passed": 30, "failed": 0} for v in ("openai", "anthropic", "gemini", "mcp")}
    assert report["failures"] == []


def test_envs_lint_schemas_runs_google_genais_own_conversion_in_each_dialect() -> None:
    """The vendor rules pass, each on the dialect its clients get; google-genai's converter takes every
    default schema and fails on every strict one: the lint says so, and where google-genai belongs."""
    result = run("envs", "lint-schemas", "clinic", "retail")
    assert result.exit_code == 0, result.output
    out = " ".join(result.stdout.split())
    assert "OpenAI function calling, strict │ strict │ 30 │ 30 │ 0" in out
    assert "Gemini function declarations │ default │ 30 │ 30 │ 0" in out
    assert "google-genai 3.6.1 │ default │ 30 │ 30 │ 0" in out
    assert "google-genai 3.6.1 │ strict │ 30 │ 0 │ 30" in out
    assert "✗ google-genai" not in out  # the strict dialect's failures are by design, not listed
    assert "→ connect google-genai without ?dialect=strict on the MCP URL" in out
    clients = json.loads(run("envs", "lint-schemas", "clinic", "--json").stdout)["clients"]
    genai = clients["google-genai"]
    assert (genai["version"], genai["tools"]) == ("3.6.1", 12)
    assert genai["dialects"]["default"] == {"converted": 12, "failed": []}
    assert genai["dialects"]["strict"]["converted"] == 0
    assert {f["tool"] for f in genai["dialects"]["strict"]["failed"]} >= {"book_appointment", "list_providers"}


def test_envs_lint_schemas_source_shows_what_the_specs_would_fail(catalog: Path) -> None:
    result = run("envs", "lint-schemas", "--source", "--json", catalog=catalog)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["vendors"]["anthropic"]["failed"] > 0  # SHOP's charge tool has "minimum": 0
    assert run("envs", "lint-schemas", catalog=catalog).exit_code == 0


def test_envs_check_unknown_env_is_one_line_error() -> None:
    result = run("envs", "check", "nosuch")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == "error: Environment 'nosuch' doesn't exist.\n"
    assert "Traceback" not in result.output
    result = run("envs", "check", "clinc")
    assert result.stderr.startswith("error: Environment 'clinc' doesn't exist. Did you mean 'clinic'?")


def test_main_returns_the_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "check", "nosuch"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "error: Environment 'nosuch' doesn't exist.\n"
    assert "Traceback" not in captured.err
    assert main(["envs", "schema", "task"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "Task"
    assert main(["envs", "schema", "nonsense"]) == 2  # a usage error is click's


def test_main_returns_one_when_a_check_fails(catalog: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["envs", "check", "shop_broken", "--json", "--catalog", str(catalog)]) == 1
    assert json.loads(capsys.readouterr().out)[0]["ok"] is False
    assert main(["envs", "check", "shop", "--json", "--catalog", str(catalog)]) == 0


def test_broken_catalog_file_is_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "spec.json").write_text("{nope")
    result = run("envs", "show", "bad", catalog=tmp_path)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ")
    assert "spec.json: invalid JSON" in result.stderr
    assert result.stderr.count("\n") == 1


def _schema(kind: str) -> dict[str, Any]:
    result = run("envs", "schema", kind)
    assert result.exit_code == 0, result.output
    schema: dict[str, Any] = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    return schema


def test_envs_schema_spec_validates_the_clinic_spec() -> None:
    validator = jsonschema.Draft202012Validator(_schema("spec"))
    spec = json.loads((CLINIC / "spec.json").read_text())
    validator.validate(spec)
    validator.validate({**spec, "seed": json.loads((CLINIC / "seed.json").read_text())})
    errors = list(validator.iter_errors({**spec, "colour": "red"}))
    assert errors and "colour" in errors[0].message
    bad_step = copy.deepcopy(spec)
    bad_step["tools"][0]["steps"][0]["kind"] = "delete"
    assert not validator.is_valid(bad_step)


def test_envs_schema_task_and_tasks_validate_clinic_tasks() -> None:
    tasks = json.loads((CLINIC / "tasks.json").read_text())
    jsonschema.Draft202012Validator(_schema("tasks")).validate(tasks)
    task_validator = jsonschema.Draft202012Validator(_schema("task"))
    for task in tasks:
        task_validator.validate(task)
    assert not task_validator.is_valid({**tasks[0], "difficulty": "extreme"})


def test_envs_schema_out_file(tmp_path: Path) -> None:
    out = tmp_path / "spec.schema.json"
    result = run("envs", "schema", "spec", "--out", str(out))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert json.loads(out.read_text())["title"] == "EnvSpec"


def test_tasks_list_clinic_json() -> None:
    result = run("tasks", "list", "clinic", "--json")
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    tasks = json.loads((CLINIC / "tasks.json").read_text())
    assert [t["id"] for t in listed] == [t["id"] for t in tasks]
    assert set(listed[0]) == {"id", "difficulty", "calls", "instruction"}
    assert [t["calls"] for t in listed] == [len(t.get("gold_actions", [])) for t in tasks]


def test_tasks_list_and_show(catalog: Path) -> None:
    result = run("tasks", "list", "shop", catalog=catalog)
    assert result.exit_code == 0
    assert "shop-1" in result.stdout
    result = run("tasks", "show", "shop-1", catalog=catalog)
    assert result.exit_code == 0
    shown = json.loads(result.stdout)
    assert shown["gold_actions"] == TASK["gold_actions"]
    result = run("tasks", "show", "shop-9", catalog=catalog)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: Task 'shop-9' doesn't exist.")


def test_bench_engine_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "bench" / "engine.json"
    result = run("bench", "engine", "--repeat", "5", "--out", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert {
        "benchmark",
        "python",
        "sqlite",
        "database_bytes",
        "rows",
        "episode_creation",
        "write_tool_call",
        "score",
    } <= set(data)
    for name in ("episode_creation", "write_tool_call", "score"):
        assert data[name]["envfarm"]["runs"] == 5
        assert data[name]["envfarm"]["median_ms"] > 0
        assert data[name]["dict_baseline"]["median_ms"] > 0
        assert data[name]["speedup_vs_baseline"] > 0
        assert name in result.stdout
    assert data["database_bytes"] > 500_000


def test_bench_repeat_below_minimum_is_a_usage_error(tmp_path: Path) -> None:
    result = run("bench", "engine", "--repeat", "2", "--out", str(tmp_path / "x.json"))
    assert result.exit_code == 2
    assert not (tmp_path / "x.json").exists()
