"""Server settings: ``ENVFARM_*`` variables and flags, and a one-line error naming a bad one."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from envfarm.cli import cli
from envs import paths
from server.settings import Settings, SettingsError


@pytest.mark.parametrize(
    ("value", "hosts"),
    [
        ("farm.example.org:443", ["farm.example.org:443"]),
        ("a.example, b.example:8765", ["a.example", "b.example:8765"]),
        ('["a.example", "b.example:8765"]', ["a.example", "b.example:8765"]),
        ("", []),
    ],
)
def test_allowed_hosts_come_comma_separated_or_as_a_json_list(
    monkeypatch: pytest.MonkeyPatch, value: str, hosts: list[str]
) -> None:
    monkeypatch.setenv("ENVFARM_ALLOWED_HOSTS", value)
    assert Settings.load().allowed_hosts == hosts


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("ENVFARM_PORT", "abc", "setting 'port' (ENVFARM_PORT): Input should be a valid integer"),
        ("ENVFARM_MAX_CALLS_PER_EPISODE", "0", "setting 'max_calls_per_episode'"),
        ("ENVFARM_SHARED_STORE", "maybe", "valid boolean"),
        ("ENVFARM_LOG_LEVEL", "LOUD", "setting 'log_level' (ENVFARM_LOG_LEVEL): Input should be 'DEBUG'"),
        ("ENVFARM_ALLOWED_ORIGINS", "[http://x", "setting 'allowed_origins' (ENVFARM_ALLOWED_ORIGINS): Value error"),
    ],
)
def test_a_bad_variable_is_a_typed_error_naming_it_and_its_value(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, says: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as info:
        Settings.load()
    assert says in str(info.value) and repr(value) in str(info.value) and "\n" not in str(info.value)


def test_log_levels_are_case_insensitive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENVFARM_LOG_LEVEL", "warning")
    assert Settings.load().log_level == "WARNING"


def test_serve_reports_a_bad_setting_in_one_line_and_exit_code_1() -> None:
    catalog = str(paths.BUILTIN_CATALOG)
    flag = CliRunner().invoke(cli, ["serve", "--port", "99999", "--catalog", catalog])
    variable = CliRunner().invoke(cli, ["serve", "--catalog", catalog], env={"ENVFARM_STEP_BUDGET": "ten"})
    for result, says in ((flag, "(got 99999)"), (variable, "(got 'ten')")):
        assert result.exit_code == 1 and "Traceback" not in result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: setting '") and says in lines[0]


def test_serve_refuses_an_embedding_model_it_cannot_use_in_one_line(monkeypatch) -> None:
    for name in ("ENVFARM_EMBEDDINGS_API_KEY", "OPENAI_API_KEY", "ENVFARM_EMBEDDINGS_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    catalog = str(paths.BUILTIN_CATALOG)
    for option, says in ((" ", "name a model"), ("text-embedding-3-large", "needs a key")):
        result = CliRunner().invoke(cli, ["serve", "--catalog", catalog, "--port", "0", "--embeddings", option])
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: embeddings '") and says in lines[0], lines


def test_the_serving_docs_list_every_setting_with_its_default() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "serving.md").read_text()
    rows = {
        line.split("|")[1].strip(" `"): line.split("|")[2].strip(" `")
        for line in docs.splitlines()
        if line.startswith("| `ENVFARM_")
    }
    for name, field in Settings.model_fields.items():
        assert field.description, f"setting {name} has no description"
        default = "[]" if field.default_factory is list else "—" if field.default is None else str(field.default)
        assert rows.get(f"ENVFARM_{name.upper()}") == default, f"docs/serving.md: ENVFARM_{name.upper()}"


def test_serve_on_a_busy_port_says_so_in_one_line_before_announcing_anything() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--port", str(port), "--catalog", str(paths.BUILTIN_CATALOG)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot listen on 127.0.0.1:{port}") and "--port" in lines[0]


def test_serve_takes_the_runs_folder_of_the_console_as_a_flag(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[Settings] = []

    def create_app(settings: Settings) -> None:
        seen.append(settings)
        raise RuntimeError("built")  # stop before serving

    monkeypatch.setattr("server.api.create_app", create_app)
    args = ["serve", "--port", "0", "--catalog", str(paths.BUILTIN_CATALOG), "--runs-dir", str(tmp_path)]
    result = CliRunner().invoke(cli, args)
    assert isinstance(result.exception, RuntimeError) and seen[0].runs_dir == tmp_path
